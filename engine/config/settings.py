"""Every pipeline setting, declared once: its default, its rule, its help, its models.toml key and its flag.

:class:`Settings` is the one declaration. Everything else derives from it:

- models.toml: an LLM entry may carry the settings whose ``profile`` is "llm" (its profile: prompt
  set, grammars, gate, ...), an NLI entry those whose ``profile`` is "nli" (threshold, languages,
  grade bands). :func:`profile_keys` lists them; :func:`parse_profile` checks them.
- Command line: :func:`add_arguments` adds a flag for every setting that has one (``vericite
  answer`` and the benches); :func:`from_arguments` reads them back.
- :func:`resolve` merges defaults < LLM profile < NLI profile < overrides and checks every value
  once; an error names where the bad value came from (the models.toml field or the flag).
- :func:`Settings.stamp` is what every answer records (the whole settings).
"""
from __future__ import annotations

import argparse
import json
from collections.abc import Callable, Iterable, Mapping
from dataclasses import MISSING, asdict, dataclass, field, fields
from typing import Any

from ..errors import ConfigError
from ..text.splitter import known_language

GATES = ("grammar", "scored", "relative")  # usefulness gate: greedy Yes/No, P(Yes) >= t, or P(Yes) / item max >= t
PROMPT_FORMATS = ("chat", "completion")  # GGUF chat template, or one plain completion prompt
SCHEDULES = ("overlap", "sequential")    # NLI beside the LLM, or the authors' order
STRICTNESS = ("strict", "lenient")       # keep grades 1-2, or 1-3 with the partial citations marked [3*]
REFINES = ("answer", "merge")            # stage 3: pick the verified sentences that answer, or the authors' merge
NLI_EPS = ("auto", "cuda", "cpu")        # the checker's ONNX Runtime execution provider
GROUPS = ("check", "generation", "rules", "runtime")


# -- rules: each returns None when the value is fine, else what is wrong ------------------------
def _open_unit(x: Any) -> str | None:
    return None if 0.0 < x < 1.0 else "must be in (0, 1)"


def _closed_unit(x: Any) -> str | None:
    return None if 0.0 <= x <= 1.0 else "must be in [0, 1]"


def _one_of(options: tuple[str, ...]) -> Callable[[Any], str | None]:
    return lambda x: None if x in options else f"expected one of {', '.join(options)}"


def _lang(x: Any) -> str | None:
    return None if x == "auto" or known_language(x) else "expected 'auto' or a language code the splitter knows (en, ru, de, ...)"


def _doc_tokens(x: Any) -> str | None:
    return None if x == 0 or x >= 16 else "must be 0 (whole documents) or >= 16"


def _non_negative(x: Any) -> str | None:
    return None if x >= 0 else "must be >= 0"


def _positive(x: Any) -> str | None:
    return None if x >= 1 else "must be >= 1"


def _bands(x: Any) -> str | None:
    if x is None:
        return None
    ok = len(x) == 3 and 1.0 >= x[0] >= x[1] >= x[2] >= 0.0
    return None if ok else "expected [b1, b2, b3] with 1 >= b1 >= b2 >= b3 >= 0"


def _optional(rule: Callable[[Any], str | None]) -> Callable[[Any], str | None]:
    return lambda x: None if x is None else rule(x)


def _languages(x: Any) -> str | None:
    return None if x and all(isinstance(s, str) and s for s in x) else "expected a non-empty list of language codes"


def setting(default: Any, help: str, *, kind: str, group: str, rule: Callable[[Any], str | None] | None = None,
            profile: str | None = None, key: str | None = None, flag: bool = False,
            choices: tuple[str, ...] | None = None, experimental: bool = False) -> Any:
    """A :class:`Settings` (or :class:`Resources`) field with its declaration in the field's metadata.

    Args:
        default: the value when nothing sets it.
        help: one line for ``--help`` and the configuration page.
        kind: how a raw value (TOML, flag, ``--set``) is read: "float", "int", "bool", "str", "strs"
            (list of strings -> tuple), "bands" (three floats -> tuple, or None), "int?" / "str?" (or None).
        group: one of :data:`GROUPS`: "check" (what counts as supported), "generation" (what the LLM is
            asked and how it decodes), "rules" (stage 3's rules), "runtime" (timing and resources: never
            the answer).
        rule: returns None for a good value, else what is wrong.
        profile: "llm" or "nli": the models.toml entry kind that may set it.
        key: its models.toml key (default: the field's name).
        flag: an everyday setting: commands get ``--name-with-dashes``; every setting is also ``--set name=value``.
        choices: the allowed strings (also checked as the rule when ``rule`` is None).
        experimental: no shipped profile or preset turns it on; kept for measurement (listed apart on the
            configuration page).
    """
    if group not in GROUPS:
        raise ValueError(f"group {group!r}: expected one of {GROUPS}")
    if choices and rule is None:
        rule = _one_of(choices)
    meta = {"help": help, "kind": kind, "group": group, "rule": rule, "profile": profile, "key": key, "flag": flag,
            "choices": choices, "experimental": experimental}
    return field(default=default, metadata=meta)


@dataclass(frozen=True)
class Settings:
    """The pipeline's settings. Each field's metadata holds its rule, help, models.toml role and flag."""

    threshold: float = setting(0.5, "P(entailment) needed to keep a statement (default: the checker's)",
                               group="check", kind="float", rule=_open_unit, profile="nli", flag=True)
    checker_languages: tuple[str, ...] = setting(
        ("en",), "languages the NLI checker reads; an answer in another language carries a warning that its "
                 "verdicts are not meaningful", group="check", kind="strs", rule=_languages, profile="nli", key="languages")
    grade_bands: tuple[float, float, float] | None = setting(
        None, "the checker's calibrated [b1, b2, b3]: every checked sentence gets the brief's grade 1-4 "
              "(1 verbatim, 2 paraphrase, 3 partial, 4 not supported); keep/drop still uses threshold",
        group="check", kind="bands", rule=_bands, profile="nli")
    strictness: str = setting("strict", "strict: keep sentences graded 1-2 (verbatim, paraphrase); lenient: also grade "
                                        "3 (partial), its citations marked with an asterisk, [2, 3*]; needs the "
                                        "checker's grade_bands", group="check", kind="str", choices=STRICTNESS, profile="nli",
                                 flag=True)
    prompts: str = setting("paper-en", "prompt set: a name in engine/prompts/ or a JSON path (default: the LLM's profile)",
                           group="generation", kind="str", profile="llm")
    prompt_format: str = setting("chat", "chat: the GGUF's chat template; completion: one plain prompt "
                                         "(default: the LLM's profile)",
                                 group="generation", kind="str", choices=PROMPT_FORMATS, profile="llm")
    citation_grammar: bool = setting(False, "decode stages 1 and 3 under the citation grammar: every sentence ends "
                                            "with in-range citations (default: the LLM's profile)",
                                     group="generation", kind="bool", profile="llm")
    inline_citations: bool = setting(False, "the citation grammar also lets a citation stand inside a sentence "
                                            "('According to Document [4], ...'), not only at its end (default: the "
                                            "LLM's profile)", group="generation", experimental=True, kind="bool", profile="llm")
    answer_retry: bool = setting(True, "when stage 1, under the end-only citation grammar, writes nothing but prompt "
                                       "words ('According to Document [4][1][2]!': the model's 'According to Document [4], "
                                       "...' made to end there), ask once more with citations allowed inside sentences",
                                 group="generation", kind="bool")
    doc_tokens: int = setting(0, "trim each document the LLM sees to its most question-relevant sentences within "
                                 "this many tokens, 0 = whole (default: the LLM's profile); NLI always checks the "
                                 "whole document", group="generation", experimental=True, kind="int", rule=_doc_tokens,
                              profile="llm")
    gate: str = setting("grammar", "usefulness gate: grammar = greedy Yes/No (the authors' rule); scored = "
                                   "P(Yes) >= gate_threshold from one forward pass; relative = P(Yes) divided by the "
                                   "highest P(Yes) among the question's documents >= gate_threshold (every document "
                                   "gated before the first extraction) (default: the LLM's profile)",
                        group="generation", kind="str", choices=GATES, profile="llm")
    gate_threshold: float = setting(0.5, "P(Yes) (scored) or P(Yes) / the item's highest (relative) a document "
                                         "needs, calibrated with `vericite bench gate` (default: the LLM's profile)",
                                    group="generation", kind="float", rule=_closed_unit, profile="llm")
    drop_unsupported: bool = setting(True, "strict final check: remove a final sentence that fails it (and fall back to "
                                           "the verified sentences when none passes); --no-drop-unsupported only "
                                           "reports failures", group="rules", kind="bool")
    fallback_quotes: int = setting(2, "when no statement or fact survives the checks, the answer quotes the N "
                                      "document sentences most relevant to the question (BM25), each cited and "
                                      "checked as a final sentence, with a warning; 0 = the answer is empty",
                                   group="rules", kind="int", rule=_non_negative)
    fallback_sentences: int = setting(0, "strict, when no final sentence passes: the answer is at most N verified "
                                         "sentences, those sharing two content-word stems with the question, most "
                                         "relevant first (BM25; the best one when none does), in the order "
                                         "verified; 0 = every verified sentence", group="rules", kind="int", rule=_non_negative)
    quotes: bool = setting(True, "record per cited document the span that carries each final sentence (its "
                                 "sentences and adjacent pairs scored alone; a few NLI pairs per sentence)",
                           group="check", kind="bool")
    conflicts: bool = setting(True, "report documents that give another number or year for a verified claim "
                                    "(the checker decides; engine/conflicts.py)", group="check", kind="bool")
    conflict_threshold: float = setting(0.0, "P(entailment) at which another document counts as stating a verified "
                                             "claim with its own number (0 = the checker's threshold; measured with "
                                             "`vericite bench conflicts --threshold ...`)",
                                        group="check", kind="float", rule=_closed_unit, profile="nli")
    conflict_related: float = setting(0.0, "lower P(entailment) bar for a conflict whose other sentence shares at "
                                           "least two content-word stems with the verified claim (same event told "
                                           "without naming its subject; 0 = off; at most the conflict threshold)",
                                      group="check", kind="float", rule=_closed_unit, profile="nli")
    conflict_restated: bool = setting(True, "also report a conflict when the claim with the other document's "
                                            "number entails that document's sentence (it restates the claim, "
                                            "perhaps without its subject); one more NLI pair per candidate",
                                      group="check", kind="bool")
    gate_grammar: bool = setting(True, "constrain the greedy gate to exactly Yes | No", group="generation", kind="bool")
    min_statement_words: int = setting(
        0, "statements and facts with fewer words are dropped before the NLI check (0 keeps all, as the "
           "authors do: a bare fragment such as 'Murcia' is entailed by any document naming it, but dropping "
           "fragments also drops short correct answers)", group="check", experimental=True, kind="int", rule=_non_negative)
    claim_words: int = setting(
        5, "question-aware claims: a statement, fact or final sentence with fewer words is rewritten as one full "
           "sentence with the question (the prompt set's claim step) before it is checked, so a bare name "
           "('Berea College') must be entailed as an answer, not only mentioned; 0 checks sentences as written",
        group="check", kind="int", rule=_non_negative)
    claim_guard: bool = setting(True, "a fragment with no content ('According to Document [4]') is not rewritten, and a "
                                      "rewrite that adds answer words neither the fragment nor the question has is refused "
                                      "(asked to make a claim of nothing, a small model answers from memory)",
                                group="check", kind="bool")
    template_guard: bool = setting(True, "a stage-1 statement or stage-2 fact that is the question's own wording with a "
                                         "name put in the slot it asks about ('X married the narrator of ...' for 'Who "
                                         "married the narrator of ...?') is dropped before its check, unless its "
                                         "documents say those words (engine/claims.py: the checker passes such fills "
                                         "when a document names X)", group="check", kind="bool")
    relation_guard: bool = setting(True, "a stage-1 statement or stage-2 fact that states a relation the question names "
                                         "('X directed ...' for 'Who directed ...?') is dropped before its check when its "
                                         "documents state that relation in none of its words, or give the name it is "
                                         "'by' only another act ('produced by X' where they say 'directed by X'; "
                                         "engine/text/relations.py; English): the checker passes it when a document names "
                                         "both things",
                                   group="check", kind="bool")
    copy_guard: bool = setting(True, "a stage-1 statement or stage-2 fact that copies a sentence of its documents but "
                                     "leaves out its negation, puts another name of the document in place of the "
                                     "sentence's ('N3 stage is the most important sleep stage ...' from 'REM is ...') "
                                     "or splices in a number from another sentence is checked as that sentence instead "
                                     "(engine/text/copies.py; English): the checker passes a claim sharing nearly "
                                     "every word with its premise", group="check", kind="bool")
    cite_each: bool = setting(True, "a sentence citing several documents is also scored against each alone: it passes "
                                    "if the joint or one alone entails it, and a citation that does not carry it is "
                                    "removed (ALCE's precision rule)", group="check", kind="bool")
    life_dates: bool = setting(True, "a claim '<Name> was born in/on <date>' or '<Name> died in/on <date>' passes when a "
                                     "cited document's life span right after that name gives the date ('Ginger Rogers "
                                     "(born ...; July 16, 1911 – April 25, 1995)'; engine/text/lifedates.py; English): "
                                     "the checker does not read the bracket as a birth and a death", group="check",
                               kind="bool")
    entity_guard: bool = setting(True, "a claim that names what its cited documents (texts and titles) never name fails "
                                       "its check, the question's own names included, and so does one that copies a document "
                                       "sentence's predicate onto another subject (engine/text/entities.py): a checker "
                                       "scores such claims as entailed, careful readers do not", group="check", kind="bool")
    recite: bool = setting(False, "a stage-1 or final sentence its citations do not carry is checked against each other "
                                  "document alone, then its cited ones plus one other, and kept with the citations "
                                  "that carry it (a wrong number, a two-hop claim cited with one document)",
                           group="check", experimental=True, kind="bool")
    refine: str = setting("answer", "stage 3: answer = the LLM names the short answer and picks the fewest verified "
                                    "sentences that show it (the prompt set's select step); they are the answer as "
                                    "verified, the ones naming the answer first (engine/selection.py); merge = the "
                                    "authors' refinement, every verified sentence summarised by the LLM (also when a "
                                    "prompt set has no select step or the reply cannot be read)",
                          group="generation", kind="str", choices=REFINES, flag=True)
    backbone: bool = setting(True, "keep stage 1's verified statements in the answer: one the merge (refine = merge) dropped "
                                   "(its answer words missing from the final text) is put back, checked",
                             group="rules", kind="bool")
    backbone_facts: int = setting(2, "keep up to N verified stage-2 facts the merge (refine = merge) dropped: those sharing two "
                                     "content-word stems with the question whose answer words the final text lacks, most "
                                     "relevant first (BM25), are put back after it, checked (0 = only stage 1's statements)",
                                  group="rules", kind="int", rule=_non_negative)
    read_back: float = setting(0.0, "a final sentence that passed the checker in the model's own words (not a document's "
                                    "words) fails when the LLM, shown the documents it cites, gives P(Yes) below this "
                                    "that they state it (one forward pass per sentence; the prompt set's read_back "
                                    "step); 0 = off (default: the LLM's profile)",
                                group="rules", kind="float", rule=_closed_unit, profile="llm")
    add_nothing: bool = setting(True, "stage 3 adds nothing: a refined sentence fails the final check when fewer than half "
                                      "of its answer words (stems not in the question) occur in the verified sentences, or "
                                      "when it has none and talks about the prompt ('Based on the provided statements')",
                                group="rules", kind="bool")
    document_words: bool = setting(True, "a passing final sentence in the model's own words that puts a word its "
                                         "one cited document lacks is shown as the sentence of that document that "
                                         "alone passes it best (fills of the question's wording and rewordings are "
                                         "where readers found the checker wrong); none passing: it fails with two "
                                         "or more such words, else stays as checked", group="rules", kind="bool")
    trim_words: int = setting(20, "a passing final sentence of more than N words (English) is shown as its leading "
                                  "clauses when those pass the final check too: asides in brackets and the clauses "
                                  "that add to it cut where they hold no word of the question or the answer "
                                  "(engine/text/clauses.py; 0 = as written)",
                              group="rules", kind="int", rule=_non_negative)
    multihop: bool = setting(False, "multi-hop evidence: after stage 2, one extraction over each pair of useful documents "
                                    "that share a name the question lacks (at most 3 pairs), its facts checked against "
                                    "both together and citing the ones that carry them", group="generation", experimental=True,
                             kind="bool")
    lang: str = setting("auto", "sentence-splitter language: auto (Cyrillic in the question -> ru, else en), "
                                "en, ru, ...", group="check", kind="str", rule=_lang)
    parallel_docs: int = setting(1, "stage 2: documents decoded at once (gates, then the useful ones' extractions; "
                                    "in-process as parallel sequences of one llama.cpp context, on a server as "
                                    "concurrent requests); 1 = one after another. Changes timing, and results "
                                    "only by float rounding of batched decoding", group="runtime", kind="int", rule=_positive)
    schedule: str = setting("overlap", "overlap: NLI checks run while the LLM goes on (stage 3 waits for all); "
                                       "sequential: the authors' order. Changes timing, never results",
                            group="runtime", kind="str", choices=SCHEDULES)

    def stamp(self) -> dict[str, Any]:
        """Every setting as a JSON-ready dict (tuples as lists), for the answer's trace."""
        return {k: list(v) if isinstance(v, tuple) else v for k, v in asdict(self).items()}


@dataclass(frozen=True)
class Resources:
    """What a run may use of the machine. Never changes an answer, so not in its stamp; given as
    ``--set name=value`` like the settings, or as :func:`~vericite.engine.loader.build_pipeline` arguments."""

    n_ctx: int | None = setting(None, "LLM context tokens (default: the model's entry)",
                                group="runtime", kind="int?", rule=_optional(_positive))
    threads: int | None = setting(None, "LLM CPU threads (default: the cores the checker's threads leave, at least 1)",
                                  group="runtime", kind="int?", rule=_optional(_positive))
    gpu_layers: int = setting(0, "LLM layers on GPU, -1 = all (needs a GPU build of llama.cpp)", group="runtime",
                              kind="int", rule=lambda x: None if x >= -1 else "must be >= -1 (-1 = all layers)")
    nli_threads: int | None = setting(None, "ONNX Runtime threads for the checker (default: a quarter of the cores)",
                                      group="runtime", kind="int?", rule=_optional(_positive))
    nli_ep: str | None = setting(None, "the checker's ONNX Runtime execution provider: auto = CUDA when onnxruntime-gpu "
                                       "has it, else CPU; cuda = CUDA or an error (default: $VERICITE_NLI_EP, else auto)",
                                 group="runtime", kind="str?", rule=_optional(_one_of(NLI_EPS)), choices=NLI_EPS)
    nli_cache: str | None = setting(None, "sqlite file that keeps NLI scores across runs (default: memory only)",
                                    group="runtime", kind="str?")
    chat_format: str | None = setting(None, "llama-cpp-python chat format (e.g. chatml) for a GGUF without a chat "
                                            "template (default: the LLM entry's chat_format, else the GGUF's template)",
                                      group="runtime", kind="str?")


#: Named starting points, applied before ``--set`` and the everyday flags (and after the models' profiles).
#: A preset holds settings by name, and may name the models ("llm", "nli") used when no flag does.
PRESETS: dict[str, dict[str, Any]] = {
    # the shipped rules on the default models (models.toml's profiles)
    "default": {},
    # the authors' method only (Qian et al., SIGIR-AP 2025): their prompts, greedy Yes/No gate, statements and
    # facts checked as written against the documents they cite, the LLM's merge as the answer, reported but
    # never dropped; none of this engine's additions (guards, claim rewrites, put-backs, fallbacks, conflicts)
    "paper": {
        "prompts": "paper-en", "prompt_format": "chat", "citation_grammar": False, "inline_citations": False,
        "answer_retry": False, "doc_tokens": 0, "gate": "grammar", "gate_grammar": False, "refine": "merge",
        "multihop": False, "min_statement_words": 0, "claim_words": 0, "claim_guard": False,
        "template_guard": False, "relation_guard": False, "copy_guard": False, "life_dates": False, "cite_each": False,
        "entity_guard": False, "recite": False, "conflicts": False, "drop_unsupported": False, "fallback_quotes": 0,
        "fallback_sentences": 0, "backbone": False, "backbone_facts": 0, "add_nothing": False, "trim_words": 0,
        "document_words": False,
    },
    # the smaller LLM (Qwen2.5-Coder-0.5B, its models.toml profile): about twice as fast, finds the gold answer less often
    "small-model": {"llm": "qwen2.5-coder-0.5b-instruct-q4km"},
}
_PRESET_MODELS = ("llm", "nli")


def _meta(name: str) -> Mapping[str, Any]:
    return _ALL[name].metadata


_FIELDS = {f.name: f for f in fields(Settings)}
_RESOURCES = {f.name: f for f in fields(Resources)}
_ALL = {**_FIELDS, **_RESOURCES}


def _profile(role: str) -> dict[str, str]:
    """models.toml key -> setting name, for the settings an entry of ``role`` may carry."""
    return {f.metadata["key"] or n: n for n, f in _FIELDS.items() if f.metadata["profile"] == role}


def profile_keys(role: str) -> frozenset[str]:
    """The models.toml keys an entry of ``role`` ("llm" or "nli") may carry as its profile."""
    return frozenset(_profile(role))


def _number(x: Any) -> bool:
    return isinstance(x, (int, float)) and not isinstance(x, bool)


#: kind -> (accepts the raw value, converts it, what was expected)
_KINDS: dict[str, tuple[Callable[[Any], bool], Callable[[Any], Any], str]] = {
    "bool": (lambda x: isinstance(x, bool), bool, "true or false"),
    "int": (lambda x: isinstance(x, int) and not isinstance(x, bool), int, "an integer"),
    "float": (_number, float, "a number"),
    "str": (lambda x: isinstance(x, str), str, "a string"),
    "strs": (lambda x: isinstance(x, (list, tuple)) and all(isinstance(v, str) for v in x), tuple, "a list of strings"),
    "bands": (lambda x: x is None or (isinstance(x, (list, tuple)) and all(_number(v) for v in x)),
              lambda x: None if x is None else tuple(float(v) for v in x), "a list of three numbers"),
    "int?": (lambda x: x is None or (isinstance(x, int) and not isinstance(x, bool)), lambda x: x, "an integer"),
    "str?": (lambda x: x is None or isinstance(x, str), lambda x: x, "a string"),
}


def _read(name: str, raw: Any) -> Any:
    """``raw`` (from TOML or a flag) as the setting's type; raises TypeError on a wrong type."""
    accepts, convert, expected = _KINDS[_meta(name)["kind"]]
    if not accepts(raw):
        raise TypeError(f"expected {expected}")
    return convert(raw)


def check(name: str, raw: Any, origin: str) -> Any:
    """The value of setting ``name`` read from ``raw``, after its rule.

    Args:
        origin: the place ``raw`` came from, named in the error as "ORIGIN = VALUE: what is wrong"
            ('models.toml: [models."x"] doc_tokens', "--doc-tokens", "Settings.doc_tokens", ...).

    Raises:
        ConfigError: unknown setting, wrong type or broken rule; the message starts with ``origin``.
    """
    if name not in _ALL:
        raise ConfigError(f"{origin}: unknown setting {name!r}; known: {', '.join(_ALL)}")
    try:
        value = _read(name, raw)
    except TypeError as e:
        raise ConfigError(f"{origin} = {raw!r}: {e}") from None
    rule = _meta(name)["rule"]
    problem = rule(value) if rule else None
    if problem:
        raise ConfigError(f"{origin} = {raw!r}: {problem}")
    return value


def parse_profile(raw: Mapping[str, Any], role: str, where: str) -> dict[str, Any]:
    """The profile settings of one models.toml entry (the keys :func:`profile_keys` allows), checked,
    by setting name.

    Raises:
        ConfigError: a value breaks its rule (names ``where`` and the key).
    """
    return {name: check(name, raw[key], f"{where} {key}") for key, name in sorted(_profile(role).items()) if key in raw}


def flag(name: str) -> str:
    """The command-line flag of setting ``name`` ("doc_tokens" -> "--doc-tokens")."""
    return "--" + name.replace("_", "-")


_FLAGS_DEST = "_setting_flags"  # the parser's record of the settings it has flags for


def add_arguments(parser: argparse.ArgumentParser, names: Iterable[str] | None = None) -> None:
    """Add the settings' command-line options.

    Without ``names``: the everyday flags (settings declared ``flag=True``), ``--preset NAME`` and
    ``--set NAME=VALUE`` (repeatable; any setting or resource). With ``names``: a flag for each of those
    settings only (a bench's own knobs). Every flag defaults to None (= not given) and stores under the
    setting's name; read them back with :func:`given`.
    """
    wanted = set(names) if names is not None else None
    added: list[str] = []
    for name, f in _FIELDS.items():
        m = f.metadata
        if not (m["flag"] if wanted is None else name in wanted) or flag(name) in parser._option_string_actions:
            continue  # (a bench may have added an everyday flag among its own knobs)
        kw: dict[str, Any] = {"dest": name, "default": None, "help": m["help"]}
        if m["kind"] == "bool":
            kw["action"] = argparse.BooleanOptionalAction
        else:
            kw["type"] = {"float": float, "int": int, "str": str}[m["kind"]]
            if m["choices"]:
                kw["choices"] = m["choices"]
        parser.add_argument(flag(name), **kw)
        added.append(name)
    # which dests are settings' flags: another option may share a setting's name (`answer --quotes` shows quotes)
    parser.set_defaults(**{_FLAGS_DEST: tuple(parser.get_default(_FLAGS_DEST) or ()) + tuple(added)})
    if wanted is None:
        parser.add_argument("--preset", choices=sorted(PRESETS),
                            help="start from named settings: default (the shipped rules), paper (the authors' method "
                                 "only), small-model (the 0.5B LLM); --set and flags go on top")
        parser.add_argument("--set", dest="assignments", action="append", default=[], metavar="NAME=VALUE",
                            help="any other setting or resource, e.g. --set drop_unsupported=false --set threads=4 "
                                 "(values as JSON, else text; `vericite settings` lists them all)")


def parse_assignments(values: Iterable[str], origin: str = "--set") -> dict[str, Any]:
    """``["backbone_facts=0", "add_nothing=false"]`` -> ``{"backbone_facts": 0, "add_nothing": False}``:
    each value read as JSON, else as text (``prompts=facts-en-kv``); not checked against any rule.

    Raises:
        ConfigError: an item without "=" or with an empty name.
    """
    out: dict[str, Any] = {}
    for v in values:
        name, eq, raw = v.partition("=")
        if not eq or not name.strip():
            raise ConfigError(f"{origin} needs NAME=VALUE, got {v!r}")
        try:
            out[name.strip()] = json.loads(raw)
        except json.JSONDecodeError:
            out[name.strip()] = raw
    return out


@dataclass(frozen=True)
class Given:
    """What a command line gave, checked: settings overrides, resources and models, by name."""

    settings: dict[str, Any]
    resources: dict[str, Any]
    models: dict[str, str]


def given(args: argparse.Namespace) -> Given:
    """The settings, resources and models of a command line built with :func:`add_arguments`:
    the preset, then ``--set``, then the everyday flags; each value checked, an error naming where it
    came from ("--set gate", "--preset paper: gate", "--threshold").

    Raises:
        ConfigError: an unknown name or a bad value.
    """
    settings: dict[str, Any] = {}
    resources: dict[str, Any] = {}
    models: dict[str, str] = {}
    preset = getattr(args, "preset", None)
    layers: list[tuple[dict[str, Any], Callable[[str], str]]] = []
    if preset:
        layers.append((dict(PRESETS[preset]), lambda n: f"--preset {preset}: {n}"))
    layers.append((parse_assignments(getattr(args, "assignments", None) or []), lambda n: f"--set {n}"))
    flags = getattr(args, _FLAGS_DEST, ())
    layers.append(({n: getattr(args, n) for n in flags if getattr(args, n, None) is not None}, flag))
    for values, origin in layers:
        for name, raw in values.items():
            if name in _PRESET_MODELS:
                models[name] = raw
                continue
            (resources if name in _RESOURCES else settings)[name] = check(name, raw, origin(name))
    return Given(settings, resources, models)


def from_arguments(args: argparse.Namespace) -> dict[str, Any]:
    """The settings overrides a command line gave (see :func:`given`), by name."""
    return given(args).settings


def preset(name: str) -> dict[str, Any]:
    """The settings of preset ``name`` (models left out), checked.

    Raises:
        ConfigError: no such preset, or a value breaking its rule.
    """
    if name not in PRESETS:
        raise ConfigError(f"unknown preset {name!r}; known: {', '.join(PRESETS)}")
    return {n: check(n, v, f"preset {name}: {n}") for n, v in PRESETS[name].items() if n not in _PRESET_MODELS}


def resolve(*profiles: tuple[Mapping[str, Any], str], overrides: Mapping[str, Any] | None = None,
            overrides_origin: str = "argument") -> Settings:
    """Settings from defaults, then each (profile values, where) in order, then ``overrides``.

    Args:
        profiles: e.g. ``(llm_spec.profile, 'models.toml [models."x"]')``; values already checked.
        overrides: values by setting name; None values are ignored (not given).
        overrides_origin: "flag" names each override's flag in errors; anything else is used as is.

    Raises:
        ConfigError: an override breaks its rule or names no setting.
    """
    values: dict[str, Any] = {}
    for prof, _where in profiles:
        values.update(prof)
    for name, raw in (overrides or {}).items():
        if raw is None:
            continue
        origin = flag(name) if overrides_origin == "flag" else f"{overrides_origin} {name}"
        if name not in _FIELDS:  # (a resource is a build_pipeline argument, not a setting)
            raise ConfigError(f"{origin}: unknown setting {name!r}; known: {', '.join(_FIELDS)}")
        values[name] = check(name, raw, origin)
    return Settings(**values)


def validate(s: Settings, origin: str = "Settings") -> Settings:
    """``s`` after every rule (for settings built in code, e.g. ``Settings(doc_tokens=8)``).

    Raises:
        ConfigError: the first field that breaks its rule, named with ``origin``.
    """
    for name in _FIELDS:
        value = getattr(s, name)
        check(name, list(value) if isinstance(value, tuple) else value, f"{origin}.{name}")
    if s.strictness == "lenient" and s.grade_bands is None:
        raise ConfigError(f"{origin}.strictness = 'lenient' needs the checker's grade_bands (models.toml), "
                          "which tell a partial (grade 3) citation from an unsupported one")
    if s.conflict_related > (s.conflict_threshold or s.threshold):
        raise ConfigError(f"{origin}.conflict_related = {s.conflict_related} is above the conflict threshold "
                          f"{s.conflict_threshold or s.threshold}: it is the lower bar for related sentences")
    return s


def default(name: str) -> Any:
    """The declared default of setting ``name``."""
    f = _ALL[name]
    return f.default if f.default is not MISSING else None


def changed(base: Settings, new: Settings) -> dict[str, Any]:
    """The fields of ``new`` whose value differs from ``base``'s, by name (e.g. a request's options)."""
    return {name: getattr(new, name) for name in _FIELDS if getattr(new, name) != getattr(base, name)}


def _shown(value: Any) -> str:
    if isinstance(value, tuple):
        value = list(value)
    return "(none)" if value is None else json.dumps(value, ensure_ascii=False)


def table() -> list[dict[str, Any]]:
    """Every setting and resource as a row: name, group, default, kind, choices, models.toml profile
    role, everyday flag (or None), experimental, help; settings first, in declaration order."""
    rows = []
    for name, f in _ALL.items():
        m = f.metadata
        rows.append({"name": name, "group": m["group"], "default": default(name), "kind": m["kind"],
                     "choices": list(m["choices"]) if m["choices"] else None, "profile": m["profile"],
                     "key": m["key"] or name, "flag": flag(name) if m["flag"] and name in _FIELDS else None,
                     "experimental": m["experimental"], "resource": name in _RESOURCES, "help": m["help"]})
    return rows


_GROUP_TITLES = {
    "check": "Check: what counts as supported",
    "generation": "Generation: what the LLM is asked and how it decodes",
    "rules": "Rules: stage 3's rules over the draft",
    "runtime": "Runtime: timing and resources (never the answer)",
}


def markdown() -> str:
    """The configuration page (docs/configuration.md), generated from the declarations above."""
    lines = ["# Configuration", "",
             "Generated from `engine/config/settings.py` by `vericite settings --markdown`; do not edit by hand.", "",
             "Every setting can be given as `--set name=value` (values read as JSON, else as text) on "
             "`vericite answer` and `vericite serve`; the everyday ones also have a flag. Order, later wins: "
             "the default, the LLM's models.toml profile, the checker's profile, `--preset`, `--set`, the flags. "
             "Every answer records its settings (`settings` in its JSON).", "",
             "## Presets", ""]
    for name, values in PRESETS.items():
        shown = ", ".join(f"`{k}={_shown(v)}`" for k, v in values.items()) or "nothing changed"
        lines.append(f"- `--preset {name}`: {shown}")
    rows = table()
    for group in GROUPS:
        lines += ["", f"## {_GROUP_TITLES[group]}", "", "| name | default | flag / profile | |", "|---|---|---|---|"]
        for r in rows:
            if r["group"] != group:
                continue
            where = [f"`{r['flag']}`"] if r["flag"] else []
            if r["profile"]:
                where.append(f"models.toml {r['profile']} `{r['key']}`")
            if r["resource"]:
                where.append("resource")
            note = ("experimental: " if r["experimental"] else "") + r["help"].replace("|", "\\|")
            choices = f" ({' / '.join(r['choices'])})" if r["choices"] else ""
            lines.append(f"| `{r['name']}` | `{_shown(r['default'])}`{choices} | {', '.join(where)} | {note} |")
    return "\n".join(lines) + "\n"


__all__ = ["GATES", "GROUPS", "NLI_EPS", "PRESETS", "PROMPT_FORMATS", "SCHEDULES", "STRICTNESS", "Given", "Resources",
           "Settings", "add_arguments", "changed", "check", "default", "flag", "from_arguments", "given", "markdown", "table",
           "parse_assignments", "parse_profile", "preset", "profile_keys", "resolve", "validate"]
