"""Sentence-window premises (issue 13) on the real carried checker
(nli-minilm-l6-bin-int8 in models/, int8 weights / fp32 compute: its scores do not
depend on the batch). The figures in the comments were measured with that model;
the assertions hold them to the threshold 0.7, not to the digits.

The same subject in other tiers: tests/unit/test_premise_windows.py.
"""
from __future__ import annotations

import numpy as np
import pytest

from vericite.engine.nli import onnx_scorer as O
from vericite.engine.nli.batching import plan_batches
from vericite.engine.nli.load import load_checker
from vericite.engine.errors import ConfigError
from vericite.engine.config.registry import Registry, model_path, tokenizer_path, verify
from vericite.engine.nli.cross_encoder import OnnxCrossEncoder


THRESHOLD = 0.7
MODEL = "nli-minilm-l6-bin-int8"


# ------------------------------------------------------------------------------------------------
# models.toml -> constructor

def test_sentence_window_flows_from_models_toml(tmp_path):
    reg = Registry.load()
    spec = reg.get(MODEL, "nli")
    # the shipped default, chosen on the held-out citation check (models.toml comments): K = 1
    assert spec.sentence_window == 1 and reg.get("nli-minilm-l6-hn-int8", "nli").sentence_window == 1
    assert load_checker(spec, intra_op_threads=1).sentence_window == 1  # through the number guard
    entry = (f'[models.x]\nrole = "nli"\nformat = "onnx"\nsource = "path"\npath = "{model_path(spec)}"\n'
             f'tokenizer = "{tokenizer_path(spec)}"\nsha256 = "{spec.sha256}"\ninput_format = "cross-encoder"\n')
    toml = tmp_path / "models.toml"
    toml.write_text(entry + "sentence_window = 3\n")
    ce = load_checker(Registry.load(toml).models["x"], intra_op_threads=1)
    assert ce.sentence_window == 3 and "sentences=3" in ce.cache_id
    toml.write_text(entry)
    assert Registry.load(toml).models["x"].sentence_window == 0  # default: off
    for bad in ("-1", "1.5", "true", '"2"'):
        toml.write_text(entry + f"sentence_window = {bad}\n")
        with pytest.raises(ConfigError, match="sentence_window"):
            Registry.load(toml)


# ------------------------------------------------------------------------------------------------
# the real checker

@pytest.fixture(scope="module")
def ce():
    """The bare cross-encoder (no number guard: the figures are the model's own)."""
    spec = Registry.load().get(MODEL, "nli")
    return OnnxCrossEncoder(verify(spec), tokenizer_path(spec), max_length=spec.max_length,
                            premise_window=spec.premise_window, intra_op_threads=1, name=spec.name)


def _with(ce, k: int, pairs) -> np.ndarray:
    old = ce.sentence_window
    ce.sentence_window = k
    try:
        return ce.scores(pairs)
    finally:
        ce.sentence_window = old


#: A made-up document of unrelated encyclopedic paragraphs (about 560 tokens); the fact is its last sentence.
LONG_DOC = (
    "Since then the market square has been closed to cars on market days. The town library moved into the former "
    "corn exchange after the building was restored. Its reading room has a glass roof that floods the hall with "
    "daylight. The writer Edith Crane spent her childhood in a cottage near the church. Her novels describe the "
    "river, the market and the people of the valley. The cottage was bought by the town and now opens to visitors "
    "on weekends. The Grand Northern Canoe Relay (GNCR) is an annual three-day paddling race held each September on "
    "the lakes of northern Ontario. Teams of eight paddlers carry their canoes between lakes along portage trails "
    "marked the week before. The race was founded in 1988 by the outfitter Della Marsh after a bet with a rival "
    "guide. It holds the record for the longest relay canoe race in North America. In 2019 the organisers announced "
    "that the route would be shortened because of low water. Warehouses along the wharf stored grain, timber and "
    "slate brought in by narrow boats. The arrival of the railway later made the canal unprofitable, and it was "
    "gradually filled in. The station stood on a low embankment to the east of the market square. Passenger trains "
    "stopped running on the line many years ago, and the track bed is now a footpath. The town hall, built of red "
    "brick, houses the council chamber and a small museum. The museum displays tools from the old tannery, coins "
    "found in the river and a model of the bridge. Halvard Strom (March 3, 1871 - October 9, 1944) was a "
    "Norwegian-born Canadian violinist, painter, mountaineer and amateur astronomer. Though largely forgotten today, "
    "in his lifetime his playing was praised by critics in Oslo, Paris and Montreal. The conductor Anton Rieger "
    "called him \"the finest bow arm of his generation\", and a Montreal newspaper described his concerts as "
    "\"evenings of pure fire\". Corwin Bale is a juggler and street performer. Bale was born in Ohio and now lives "
    "in Boise, Idaho. He runs a circus school (Bale's Big Top) in Boise. He has performed comic juggling routines "
    "with knives, torches and bowling pins since 1985, including on the television shows \"Talent Tonight\" and "
    "\"Morning Live\". Every summer the town holds a regatta on the river, with rowing races and a procession of "
    "decorated boats. The surrounding farmland is mostly pasture, with some orchards on the sheltered southern "
    "slopes. Apple growers in the area once supplied cider mills across the county. A large woodland to the west "
    "of the town is managed as a nature reserve. The reserve is home to badgers, owls and several rare species of "
    "orchid. Local volunteers maintain the paths and count the birds that nest there each spring."
)


def test_a_fact_at_the_end_of_a_long_document_is_found_by_sentence_windows(ce):
    assert len(ce.ids(LONG_DOC)) > 500
    true = ["Local volunteers keep up the reserve's paths.",   # "the reserve" needs the sentence before: K = 2
            "Volunteers count the birds that nest in the reserve each spring.",
            "Local volunteers maintain the paths and count the birds that nest there each spring."]
    false = ["Paid rangers maintain the paths and count the birds.",
             "Local volunteers maintain the paths and count the birds that nest there each autumn."]
    before = _with(ce, 0, [(LONG_DOC, h) for h in true + false])
    after = _with(ce, 2, [(LONG_DOC, h) for h in true + false])
    # measured: true 0.276 / 0.473 / 0.448 -> 0.893 / 0.870 / 0.933; false 0.075 / 0.295 -> 0.075 / 0.468
    assert (before[:3] < THRESHOLD).all() and (after[:3] >= THRESHOLD).all()
    assert (after[3:] < THRESHOLD).all()
    assert (after >= before).all()  # the max over more windows never lowers a score
    # K = 1 (the shipped default) finds the verbatim sentence (0.929) but not the paraphrases that need the
    # sentence before for "the reserve" (0.687, 0.549); K = 2 also lifts a false one it leaves ambiguous,
    # "Local volunteers count the badgers that live there each spring." 0.578 -> 0.842 (why K = 1 ships)
    one = _with(ce, 1, [(LONG_DOC, h) for h in true + false])
    assert one[2] >= THRESHOLD and (one[3:] < THRESHOLD).all()
    assert (before <= one).all() and (one <= after).all()


def _old_scores(ce, pairs) -> np.ndarray:
    """The scorer as it was before sentence windows and hypothesis parts (the hypothesis cut to
    max_length // 2 tokens, token windows only), through the same batching."""
    owner, rows = [], []
    for i, (p, h) in enumerate(pairs):
        hyp = ce.ids(h)[: ce.max_length // 2]
        budget = min(ce.max_length - len(hyp) - 3, ce.premise_window or 10 ** 9)
        for w in O.premise_windows(ce.ids(p), budget):
            ids = [ce._cls, *w, ce._sep, *hyp, ce._sep]
            owner.append(i)
            rows.append({"input_ids": ids, "attention_mask": [1] * len(ids),
                         "token_type_ids": [0] * (len(w) + 2) + [1] * (len(hyp) + 1)})
    probs = np.zeros(len(rows), dtype=np.float32)
    for idx in plan_batches([len(r["input_ids"]) for r in rows], max_tokens=ce.batch_tokens, max_batch=ce.max_batch):
        width = max(len(rows[r]["input_ids"]) for r in idx)
        feeds = {}
        for key in rows[idx[0]]:
            arr = np.zeros((len(idx), width), dtype=np.int64)
            for j, r in enumerate(idx):
                arr[j, :len(rows[r][key])] = rows[r][key]
            feeds[key] = arr
        probs[idx] = ce.run_batch({k: v for k, v in feeds.items() if k in ce.input_names})
    out = np.zeros(len(pairs), dtype=np.float32)
    np.maximum.at(out, np.asarray(owner), probs)
    return out


def test_sentence_window_zero_scores_exactly_as_before(ce):
    at_limit = ce._tok.decode(ce.ids(" ".join(["Corwin Bale lives in Boise."] * 30))[:ce.hypothesis_limit])
    pairs = [(LONG_DOC, "Local volunteers keep up the reserve's paths."),
             ("Rush is a Canadian rock band formed in 1968 in Toronto.", "Rush is Canadian."),
             ("Short.", "A much longer hypothesis that talks about something else entirely, at length."),
             (LONG_DOC, at_limit)]                     # exactly the hypothesis limit: still one part
    assert len(ce.ids(at_limit)) == ce.hypothesis_limit
    assert np.array_equal(_with(ce, 0, pairs), _old_scores(ce, pairs))


#: The first sentences of a made-up town description (premise) ...
TOWN = [
    "Marrowby is a small market town on the northern bank of the river Tess.",
    "The town grew up around a stone bridge that carried the old road from the coast to the hill country.",
    "For several centuries its weekly cattle market drew farmers from the surrounding valleys.",
    "The parish church, dedicated to Saint Aldric, has a square tower and a carved wooden screen.",
    "A grammar school was founded beside the church by a wealthy wool merchant.",
    "In the age of canals a branch waterway linked the town to the larger port downstream.",
    "Warehouses along the wharf stored grain, timber and slate brought in by narrow boats.",
    "The arrival of the railway later made the canal unprofitable, and it was gradually filled in.",
    "The station stood on a low embankment to the east of the market square.",
    "Passenger trains stopped running on the line many years ago, and the track bed is now a footpath.",
    "The town hall, built of red brick, houses the council chamber and a small museum.",
    "The museum displays tools from the old tannery, coins found in the river and a model of the bridge.",
]
#: ... and a false sentence about it.
FALSE_TAIL = ("The town hall, built of grey stone, houses a cinema and a swimming pool, and the museum displays "
              "only paintings.")


@pytest.mark.parametrize("k", [0, 2])
def test_a_true_paragraph_with_a_false_tail_past_the_limit_is_rejected(ce, k):
    premise = " ".join(TOWN)
    hyp = " ".join(TOWN[:9]) + " " + FALSE_TAIL     # 9 true sentences, then the false one
    ids = ce.ids(hyp)
    assert len(ce.ids(" ".join(TOWN[:9]))) < ce.hypothesis_limit < len(ids)  # the false sentence is past the cut
    cut = ce._tok.decode(ids[:ce.hypothesis_limit])   # what the checker used to score (uncased: same ids)
    assert ce.ids(cut) == ids[:ce.hypothesis_limit]
    split0 = ce.stats["split_hypotheses"]
    full, cut_score, tail = _with(ce, k, [(premise, hyp), (premise, cut), (premise, FALSE_TAIL)])
    # measured: the cut version 0.781 (accepted), the whole hypothesis 0.011-0.013, the tail alone 0.011
    assert cut_score >= THRESHOLD > full
    assert full == pytest.approx(min(_with(ce, k, [(premise, s) for s in TOWN[:9] + [FALSE_TAIL]])), abs=1e-6)
    assert ce.stats["split_hypotheses"] == split0 + 1 and tail < THRESHOLD
    true_only = " ".join(TOWN) + " " + " ".join(TOWN[:2])   # every part entailed: the pair is too
    assert len(ce.ids(true_only)) > ce.hypothesis_limit
    assert _with(ce, k, [(premise, true_only)])[0] >= THRESHOLD


def test_every_window_row_is_checked_for_nan(ce, monkeypatch):
    from vericite.engine.errors import InferenceError

    real = ce.run_batch

    def one_nan(feeds):  # one row of the batch is NaN, the others are finite
        p = real(feeds)
        p[-1] = np.nan
        return p

    monkeypatch.setattr(ce, "run_batch", one_nan)
    with pytest.raises(InferenceError, match="non-finite"):
        _with(ce, 2, [(LONG_DOC, "Local volunteers keep up the reserve's paths.")])
