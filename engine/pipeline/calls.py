"""What the stages share: one LLM call on the question's clock, the documents block fitted to the
context, the citation grammar, the splitter's language, and question-aware claims."""
from __future__ import annotations

import logging
from typing import TYPE_CHECKING

from .. import cancel
from .. import records as R
from ..claims import (
    complete_claims,
    is_fragment,
    without_altered_copies,
    without_template_fills,
    without_unstated_relations,
)
from ..llm.fitting import fit_documents, prompt_budget, warn_once
from ..llm.grammar import citation_grammar
from ..prompts import PromptSet
from ..records import LLMCall, StageTrace, Statement
from ..text.language import detect_or
from ..verifier import Claim
from .context import Question

if TYPE_CHECKING:
    from .method import VeriCite

log = logging.getLogger(__name__)


def split_lang(pipe: VeriCite, q: Question, text: str) -> str:
    """The splitter's language for ``text`` (an answer, an extraction, a document): the setting,
    or for "auto" the text's own language when detected with confidence, else the question's."""
    return pipe.settings.lang if pipe.settings.lang != "auto" else detect_or(text, q.lang)


def chat(pipe: VeriCite, q: Question, messages: list[dict[str, str]], *, step: str, purpose: str,
          grammar: str | None = None) -> LLMCall:
    """One LLM call of ``step`` on the question's clock (its cap from the prompt set).

    Raises:
        Cancelled: the question was stopped (checked before the call, and by the backend during it).
        InferenceError, ConfigError: from the LLM.
    """
    cancel.check()
    with q.timeline.span("llm", purpose):
        return pipe.llm.chat(pipe.render(messages), max_tokens=q.prompts.steps[step].max_tokens,
                             purpose=purpose, grammar=grammar)


def budget(pipe: VeriCite, prompts: PromptSet, step: str, question: str, statements: str = "") -> int:
    """Tokens left for documents in one prompt of ``step``."""
    fixed = [m["content"] for m in prompts.messages(step, question=question, statements=statements)]
    return prompt_budget(pipe.llm, fixed, prompts.steps[step].max_tokens)


def documents_block(pipe: VeriCite, step: str, q: Question, statements: str = "") -> str:
    """All documents rendered for ``step``, each cut to an equal share of the context if needed."""
    return fit_documents(pipe.llm, q.shown, budget(pipe, q.prompts, step, q.text, statements), q.prompts.doc, q.warnings,
                         hint=f"for {step}; pass fewer documents (--ndoc) or use a model with a larger context")


def cite_grammar(pipe: VeriCite, n_docs: int, allowed: set[int] | None = None) -> str | None:
    return citation_grammar(n_docs, allowed=allowed, inline=pipe.settings.inline_citations) \
        if pipe.settings.citation_grammar else None


def complete(pipe: VeriCite, q: Question, items: list[Statement | Claim], trace: StageTrace, where: str,
             failed: str = R.DROPPED_FRAGMENT) -> list[Statement | Claim]:
    """Question-aware claims (:mod:`~vericite.engine.claims`): every claim with fewer than
    ``claim_words`` words rewritten as a full sentence with the question (one LLM call each,
    purpose ``claim:<where>``, recorded in ``trace``); a fragment that cannot be gets ``failed``."""
    n = pipe.settings.claim_words
    if not any(isinstance(x, Claim) and is_fragment(x.text, n) for x in items):
        return items
    if "claim" not in q.prompts.steps:
        warn_once(q.warnings, f"prompt set {q.prompts.tag} has no claim step: fragments are not checked "
                              "as claims and are dropped")
        return complete_claims(items, None, n, question=q.text, lang=q.lang, failed=failed)

    def rewrite(fragment: str) -> str:
        call = chat(pipe, q, q.prompts.messages("claim", question=q.text, statements=fragment), step="claim",
                          purpose=f"claim:{where}")
        trace.llm_calls.append(call)
        return call.text

    return complete_claims(items, rewrite, n, question=q.text, lang=q.lang, guard=pipe.settings.claim_guard, failed=failed,
                           notes=trace.notes)


def claims(pipe: VeriCite, q: Question, items: list[Statement | Claim], trace: StageTrace, where: str
           ) -> list[Statement | Claim]:
    """A stage-1 or stage-2 extraction's claims ready for their check: fragments completed
    (:func:`complete`), then, with ``template_guard``, those that are the question's own wording with a
    name put in dropped (:func:`~vericite.engine.claims.without_template_fills`; notes in ``trace``), and, with
    ``relation_guard``, those stating the question's relation where their documents never state it
    (:func:`~vericite.engine.claims.without_unstated_relations`), and, with ``copy_guard``, those copying a document
    sentence with its negation left out or another name put in (:func:`~vericite.engine.claims.without_altered_copies`)."""
    items = complete(pipe, q, items, trace, where)
    if pipe.settings.template_guard:
        items = without_template_fills(items, q.text, trace.notes)
    if pipe.settings.relation_guard:
        items = without_unstated_relations(items, q.text, q.lang, trace.notes)
    return without_altered_copies(items, q.lang, trace.notes) if pipe.settings.copy_guard else items
