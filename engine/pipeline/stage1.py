"""Stage 1: the initial answer from all documents; each statement's check against the documents it
cites is submitted (the checks run while the LLM goes on)."""
from __future__ import annotations

import logging
from typing import TYPE_CHECKING

from .. import cancel
from .. import records as R
from ..llm.grammar import citation_grammar
from ..records import StageTrace, Statement
from ..text.content import content_free
from ..verifier import Claim, answer_claims
from .calls import chat, cite_grammar, claims, documents_block, split_lang
from .context import Question, Stage

if TYPE_CHECKING:
    from .method import VeriCite

log = logging.getLogger(__name__)


def answer(pipe: VeriCite, q: Question) -> Stage:
    """Initial answer from all documents; each statement's check against its cited documents is submitted."""
    cancel.check()
    st = Stage(StageTrace(R.ANSWER))
    with q.timeline.span(None) as t:
        log.info("stage 1: answering from %d documents", len(q.documents))
        block = documents_block(pipe, R.ANSWER, q)

        def ask(grammar: str | None) -> list[Statement | Claim]:
            call = chat(pipe, q, q.prompts.messages(R.ANSWER, question=q.text, docs=block), step=R.ANSWER,
                              purpose=R.ANSWER, grammar=grammar)
            st.trace.llm_calls.append(call)
            return answer_claims(R.ANSWER, call.text, q.documents, split_lang(pipe, q, call.text), final=False,
                                 min_words=pipe.settings.min_statement_words, recite=pipe.settings.recite)

        items = ask(cite_grammar(pipe, len(q.documents)))
        if _said_nothing(pipe, items):  # "According to Document [4][1][2]!": the grammar cut the sentence short
            st.trace.notes.append(f"stage 1 said nothing ({st.trace.llm_calls[-1].text.strip()!r}): asked again "
                                  "with citations allowed inside sentences (answer_retry)")
            items = ask(citation_grammar(len(q.documents), inline=True))
        items = claims(pipe, q, items, st.trace, R.ANSWER)  # fragments -> full sentences; template fills dropped
        st.checks.append(pipe.verifier().submit(items, (R.KEPT, R.DROPPED_NLI), st.trace, q.timeline))
    st.trace.wall_ms = round(t.ms, 1)
    return st


def _said_nothing(pipe: VeriCite, items: list[Statement | Claim]) -> bool:
    """Whether stage 1, decoded under the end-only citation grammar with ``answer_retry`` on,
    wrote only sentences without content (:func:`~vericite.engine.text.content.content_free`)."""
    s = pipe.settings
    return (s.answer_retry and s.citation_grammar and not s.inline_citations
            and all(content_free(x.text) for x in items))
