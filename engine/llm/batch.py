"""Several prompts decoded together as parallel sequences of one llama.cpp context (issues 16, 17).

Decoding is memory-bound: one step over N sequences reads the weights once, so N sequences
decode nearly as fast as one. :meth:`LlamaCppLLM.batched(slots=N, clients=D)
<vericite.engine.llm.llama_cpp.LlamaCppLLM.batched>` returns a :class:`BatchSession`: D client threads (stage
2: one per document) call ``chat`` / ``yes_probability`` on it as on the LLM, and one worker
thread decodes every pending call as one sequence of a second llama.cpp context on the same
model: one ``llama_batch`` per step holding the next token of every generating sequence and the
prompt chunks of newly admitted ones (up to ``n_batch`` tokens), at most N sequences at once.

- Sequences: id 0 holds a prompt prefix shared by the calls admitted together (e.g. system
  prompt + question), evaluated once and copied into each slot with ``llama_memory_seq_cp`` (the
  KV buffer is unified, so a copy shares cells); ids 1..N are the slots. A finished call leaves
  its tokens in its slot, and a later call is placed in the free slot sharing the longest prefix
  with it: a document's extraction reuses its gate's prompt (the paper-en-kv layout shares the
  document). ``reuse_prefix = False`` evaluates every prompt whole.
- Decoding: greedy, as :meth:`LlamaCppLLM._generate <vericite.engine.llm.llama_cpp.LlamaCppLLM._generate>`
  with ``draft_tokens = 0`` (the same lazy grammar check per sequence with its own llama.cpp
  grammar sampler, the same stops, cap and UTF-8 rule, :class:`~vericite.engine.llm.decoding.Completion`);
  a scored call reads P(Yes) from its prompt's last logits as ``yes_probability`` does.
- Determinism: the worker steps only when every client that has not finished is waiting for an
  answer, and admits waiting calls in client order, so which calls share a step does not depend
  on thread timing. Batched evaluation still rounds differently from one sequence at a time (other
  matrix shapes, attention over a shared buffer), so a greedy near-tie can flip (docs/benchmarks.md).
- Timings in each :class:`~vericite.engine.records.LLMCall`: ``prompt_eval_ms`` and
  ``generation_ms`` are the wall times of the steps the sequence took part in (shared with the
  other sequences of those steps, so they add up to more than the stage's wall time);
  ``wall_ms`` runs from admission to the last token; ``prompt_tokens_computed`` counts the
  tokens evaluated for the call (the shared prefix counts for the first call that needed it).
- Capacity: the batch context holds ``cells`` KV cells (default ``n_ctx * (slots + 2) // 2``); a call
  is admitted when the tokens held (counted without sharing, an upper bound) plus its prompt and
  cap fit, after dropping what idle slots keep; otherwise it waits for a running one to finish.

Every llama.cpp call runs under the LLM's one lock (one step at a time), so other threads'
ordinary calls on the same :class:`~vericite.engine.llm.llama_cpp.LlamaCppLLM` take turns with the steps;
two sessions on one batch context (two questions' stage 2 at once) take turns as a whole.
A stopped question (:mod:`~vericite.engine.cancel`) ends its session before the next step: the
running sequences are dropped from their slots and every client's call raises Cancelled.
"""
from __future__ import annotations

import logging
import threading
import time
import weakref
from concurrent.futures import Future
from contextlib import contextmanager
from dataclasses import dataclass, field
from typing import Any

from .. import cancel
from ..errors import Cancelled, ConfigError, InferenceError
from ..records import LLMCall
from .decoding import Completion, logits_row, vocab_text

log = logging.getLogger(__name__)


@dataclass
class _Request:
    client: int
    order: int
    purpose: str
    tokens: list[int]
    max_tokens: int                 # clipped to the context (generation); 0 for a scored call
    grammar: str | None
    scored: tuple[int, int] | None  # (yes id, no id) for a scored call
    words: tuple[str, str]          # (yes, no) texts of a scored call
    stops: list[bytes]
    future: Future = field(default_factory=Future)
    shared_ms: float = 0.0          # the shared prefix, evaluated for this call (the first of its group)
    shared_n: int = 0


@dataclass
class _Slot:
    seq_id: int
    tokens: list[int] = field(default_factory=list)  # tokens whose KV this sequence holds
    busy: bool = False
    reserved: int = 0    # while busy: the running call's prompt + cap
    used_at: int = 0


@dataclass
class _Seq:
    """An admitted call in its slot."""

    req: _Request
    slot: _Slot
    todo: list[int]                  # prompt tokens still to evaluate
    computed: int = 0
    t_admit: float = field(default_factory=time.perf_counter)
    prompt_ms: float = 0.0
    gen_ms: float = 0.0
    next_tok: int | None = None      # picked, to be evaluated next step
    comp: Completion | None = None   # decoding.Completion (generation)
    smpl: Any = None                 # grammar sampler
    st: dict = field(default_factory=dict)


def _lcp(a: list[int], b: list[int]) -> int:
    n = min(len(a), len(b))
    i = 0
    while i < n and a[i] == b[i]:
        i += 1
    return i


class _Engine:
    """The decode loop on the batch context; every method runs under the LLM's lock."""

    def __init__(self, llm, slots: int, cells: int):
        import llama_cpp

        self.llm = weakref.proxy(llm)  # the LLM owns the engine: no reference cycle
        base = llm._llm.context_params
        params = type(base).from_buffer_copy(base)  # the main context's settings (threads, attention, ...)
        params.n_ctx = cells
        params.n_seq_max = slots + 1
        params.kv_unified = True
        self.ctx = llama_cpp.llama_init_from_model(llm._llm.model, params)
        if not self.ctx:
            raise InferenceError(f"llama.cpp could not make a batch context of {cells} cells for {slots} sequences")
        self.asked, self.cells = cells, int(llama_cpp.llama_n_ctx(self.ctx))
        self.n_batch = int(params.n_batch)
        self.batch = llama_cpp.llama_batch_init(self.n_batch, 0, 1)
        # the model (llm._llm) is kept alive until this context is freed: a context must not outlive its model
        weakref.finalize(self, _free, self.ctx, self.batch, llm._llm)
        self.mem = llama_cpp.llama_get_memory(self.ctx)
        self.vocab = llama_cpp.llama_model_get_vocab(llm._llm.model)
        self.n_vocab = llm._llm.n_vocab()
        self.shared = _Slot(0)
        self.slots = [_Slot(i) for i in range(1, slots + 1)]
        self.active: list[_Seq] = []
        self.limit = slots  # sequences at once: the session's slots (at most len(self.slots))
        self.clock = 0
        self.turn = threading.Lock()  # one session at a time (concurrent questions take turns on stage 2)

    # -- admission -------------------------------------------------------------------------
    def held(self) -> int:
        """KV cells held or reserved by running calls, counted without sharing (an upper bound)."""
        return len(self.shared.tokens) + sum(s.reserved if s.busy else len(s.tokens) for s in self.slots)

    def _drop(self, slot: _Slot, keep: int = 0) -> None:
        import llama_cpp

        llama_cpp.llama_memory_seq_rm(self.mem, slot.seq_id, keep, -1)
        del slot.tokens[keep:]

    def admit(self, waiting: list[_Request]) -> tuple[list[_Request], list[_Request]]:
        """Admit waiting calls (client order) into free slots while they fit.

        Returns:
            (the calls left waiting, the calls refused: their future holds the error).
        """
        reuse = self.llm.reuse_prefix
        group: list[tuple[_Request, _Slot]] = []
        left = []
        for req in sorted(waiting, key=lambda r: (r.client, r.order)):
            free = [s for s in self.slots if not s.busy and all(s is not g for _, g in group)]
            need = len(req.tokens) + req.max_tokens
            if not free or len(self.active) + len(group) >= self.limit:
                left.append(req)
                continue
            # the free slot sharing the longest prefix; ties: least recently used
            slot = max(free, key=lambda s: (_lcp(s.tokens, req.tokens) if reuse else 0, -s.used_at))
            idle = sorted((s for s in free if s is not slot), key=lambda s: s.used_at)

            def over() -> bool:
                extra = sum(len(r.tokens) + r.max_tokens - len(g.tokens) for r, g in group)
                return self.held() + extra - len(slot.tokens) + need > self.cells

            while over() and (idle or self.shared.tokens):
                self._drop(idle.pop(0) if idle else self.shared)
            if over():
                if self.active or group:
                    left.append(req)
                    continue
                raise InferenceError(f"'{req.purpose}': {need} tokens (prompt + cap) exceed the batch context's "
                                     f"{self.cells} KV cells")
            group.append((req, slot))
        if reuse and len(group) >= 2:
            self._share(group)
        refused = [req for req, slot in group if not self._place(req, slot, reuse)]
        return left, refused

    def _share(self, group: list[tuple[_Request, _Slot]]) -> None:
        """Evaluate the prefix the group's prompts share into sequence 0 when it beats their slots."""
        common = group[0][0].tokens
        for req, _ in group[1:]:
            common = common[:_lcp(common, req.tokens)]
        common = common[:min(len(r.tokens) for r, _ in group) - 1]
        have = _lcp(self.shared.tokens, common)
        gain = sum(1 for r, s in group if len(common) > _lcp(s.tokens, r.tokens))
        pending = sum(len(r.tokens) + r.max_tokens - len(g.tokens) for r, g in group)  # reserved when placed
        if len(common) <= have or gain < 2 or self.held() + pending + len(common) - have > self.cells:
            return
        self._drop(self.shared, have)
        t0 = time.perf_counter()
        todo = common[have:]
        while todo:
            chunk, todo = todo[:self.n_batch], todo[self.n_batch:]
            self._fill([(self.shared.seq_id, len(self.shared.tokens) + k, t, False) for k, t in enumerate(chunk)])
            self._decode(len(chunk))
            self.shared.tokens += chunk
        first = group[0][0]  # the shared prefix counts as the first call's prompt evaluation
        first.shared_ms, first.shared_n = (time.perf_counter() - t0) * 1000, len(common) - have

    def _place(self, req: _Request, slot: _Slot, reuse: bool) -> bool:
        """Start ``req`` in ``slot``; False: refused (its grammar does not parse; the future holds the error)."""
        import llama_cpp

        cap = len(req.tokens) - 1  # at least one token is evaluated: its logits are needed
        own = min(_lcp(slot.tokens, req.tokens), cap) if reuse else 0
        shared = min(_lcp(self.shared.tokens, req.tokens), cap) if reuse else 0
        if shared > own:
            self._drop(slot)
            llama_cpp.llama_memory_seq_cp(self.mem, self.shared.seq_id, slot.seq_id, 0, shared)
            slot.tokens = req.tokens[:shared]
        else:
            self._drop(slot, own)
        seq = _Seq(req, slot, todo=req.tokens[len(slot.tokens):], prompt_ms=req.shared_ms, computed=req.shared_n)
        if req.scored is None:
            seq.comp = Completion(self.llm._llm, self.vocab, req.tokens, req.stops, req.max_tokens,
                                  stop_repeats=self.llm.stop_repeats)
            seq.st = {"grammar_ms": 0.0, "grammar_checks": 0, "grammar_full": 0}
            if req.grammar is not None:
                try:
                    seq.smpl = self.llm._grammar_sampler(self.vocab, req.grammar, seq.st)
                except ConfigError as e:
                    req.future.set_exception(e)
                    return False
        self.clock += 1
        slot.busy, slot.used_at, slot.reserved = True, self.clock, len(req.tokens) + req.max_tokens
        self.active.append(seq)
        return True

    # -- one step --------------------------------------------------------------------------
    def _fill(self, rows: list[tuple[int, int, int, bool]]) -> None:
        b = self.batch
        b.n_tokens = len(rows)
        for i, (seq_id, pos, tok, logits) in enumerate(rows):
            b.token[i], b.pos[i], b.n_seq_id[i], b.logits[i] = tok, pos, 1, int(logits)
            b.seq_id[i][0] = seq_id

    def _decode(self, n: int) -> None:
        import llama_cpp

        rc = llama_cpp.llama_decode(self.ctx, self.batch)
        if rc != 0:
            raise InferenceError(f"llama_decode returned {rc} on a batch of {n} tokens over "
                                 f"{len(self.active)} sequences ({self.cells} KV cells)")

    def step(self) -> list[tuple[_Request, LLMCall | None, float | None]]:
        """One decode over every running sequence; returns the calls that finished (request, call, P(Yes))."""
        rows: list[tuple[int, int, int, bool]] = []
        owners: list[tuple[_Seq, list[int], int | None]] = []  # (seq, tokens added to its slot, row of its logits or None)
        for s in self.active:
            if s.next_tok is not None:
                rows.append((s.slot.seq_id, len(s.slot.tokens), s.next_tok, True))
                owners.append((s, [s.next_tok], len(rows) - 1))
        room = self.n_batch - len(rows)
        for s in self.active:
            if not s.todo or room <= 0:
                continue
            chunk = s.todo[:room]
            last = len(chunk) == len(s.todo)
            base = len(s.slot.tokens)
            rows += [(s.slot.seq_id, base + k, t, last and k == len(chunk) - 1) for k, t in enumerate(chunk)]
            owners.append((s, chunk, len(rows) - 1 if last else None))
            room -= len(chunk)
        if not rows:
            return []
        self._fill(rows)
        t0 = time.perf_counter()
        self._decode(len(rows))
        ms = (time.perf_counter() - t0) * 1000
        st = self.llm.stats
        st["batch_steps"] = st.get("batch_steps", 0) + 1
        st["batch_rows"] = st.get("batch_rows", 0) + len(rows)
        done = []
        for s, added, row in owners:
            s.slot.tokens += added
            if s.next_tok is not None and added == [s.next_tok]:
                s.gen_ms += ms
                s.next_tok = None
            else:
                s.prompt_ms += ms
                s.computed += len(added)
                s.todo = s.todo[len(added):]
            if row is None:
                continue
            logits = logits_row(self.ctx, row, self.n_vocab)
            if s.req.scored is not None:
                done.append(self._finish_scored(s, logits))
                continue
            tok = self.llm._pick(logits, s.smpl, s.st)
            assert s.comp is not None  # _place makes it for every call that is not scored
            if s.comp.add(tok, self._accept(s)):
                done.append(self._finish(s))
            elif len(s.slot.tokens) >= self.llm.n_ctx:  # only a character split at the context's end gets here
                s.comp.cut()
                done.append(self._finish(s))
            else:
                s.next_tok = tok
        return done

    def _accept(self, s: _Seq):
        import llama_cpp

        if s.smpl is None:
            return None

        def accept(tok: int) -> None:
            t = time.perf_counter()
            llama_cpp.llama_sampler_accept(s.smpl, tok)
            s.st["grammar_ms"] += (time.perf_counter() - t) * 1000
        return accept

    def _release(self, s: _Seq) -> float:
        import llama_cpp

        self.active.remove(s)
        s.slot.busy = False
        if s.smpl is not None:
            llama_cpp.llama_sampler_free(s.smpl)
            s.smpl = None
        for k, v in s.st.items():
            self.llm.stats[k] = round(self.llm.stats.get(k, 0) + v, 1)
        return (time.perf_counter() - s.t_admit) * 1000

    def _finish(self, s: _Seq):
        wall = self._release(s)
        c = s.comp
        # a generation call (_place gave it a Completion) that add() or cut() has finished
        assert c is not None and c.finish is not None
        self.llm.stats["loop_calls"] = self.llm.stats.get("loop_calls", 0) + 1
        call = LLMCall(purpose=s.req.purpose, prompt_tokens=len(s.req.tokens), prompt_tokens_computed=s.computed,
                       completion_tokens=len(c.tokens), prompt_eval_ms=round(s.prompt_ms, 1),
                       generation_ms=round(s.gen_ms, 1), wall_ms=round(wall, 1), finish_reason=c.finish,
                       text=c.text.decode("utf-8", errors="ignore").strip())
        return s.req, call, None

    def _finish_scored(self, s: _Seq, logits):
        import numpy as np

        wall = self._release(s)
        assert s.req.scored is not None  # step calls _finish_scored for scored calls only
        yes, no = s.req.scored
        pair = logits[[yes, no]].astype(np.float64)
        p_yes = float(1.0 / (1.0 + np.exp(pair[1] - pair[0])))
        call = LLMCall(purpose=s.req.purpose, prompt_tokens=len(s.req.tokens), prompt_tokens_computed=s.computed,
                       completion_tokens=0, prompt_eval_ms=round(s.prompt_ms, 1), generation_ms=0.0,
                       wall_ms=round(wall, 1), finish_reason="scored",
                       text=s.req.words[0] if p_yes >= 0.5 else s.req.words[1])
        return s.req, call, p_yes

    def abandon(self) -> list[_Request]:
        """Drop every running sequence (after a failure); their requests."""
        out = [s.req for s in list(self.active)]
        for s in list(self.active):
            self._release(s)
        return out

    def clear(self) -> None:
        """Forget every sequence (between sessions: ``reset_cache``)."""
        import llama_cpp

        if self.active:
            return  # a session is decoding: its slots stay
        llama_cpp.llama_memory_clear(self.mem, True)
        self.shared.tokens = []
        for s in self.slots:
            s.tokens = []


def _free(ctx, batch, model_owner) -> None:
    import llama_cpp

    llama_cpp.llama_batch_free(batch)
    llama_cpp.llama_free(ctx)


class BatchSession:
    """The LLM as client threads see it while their calls are decoded together (module docstring).

    Use as a context manager (starts and stops the worker); each client thread wraps its work in
    ``with session.client(k):`` (k = 0..clients-1, the admission order), so the worker knows when
    every client is waiting. ``chat`` / ``yes_probability`` / ``count_tokens`` / ``truncate`` as
    on :class:`~vericite.engine.llm.llama_cpp.LlamaCppLLM` (no prompt-lookup drafts here).
    """

    def __init__(self, llm, engine: _Engine, *, clients: int, slots: int):
        self._llm = llm
        self._engine = engine
        self._slots = slots
        self.name = llm.name
        self.n_ctx = llm.n_ctx
        self._clients = clients
        self._finished = 0
        self._calls = 0       # clients blocked in a call (queued or running)
        self._queue: list[_Request] = []
        self._order = 0
        self._cv = threading.Condition()
        self._closing = False
        self._error: BaseException | None = None
        self._local = threading.local()
        self.peak = 0  # the most sequences decoded in one step
        # the worker stops with the question that opened the session (cancel.carry: its stop signal)
        self._worker = threading.Thread(target=cancel.carry(self._run), name="llama-batch", daemon=True)

    def __enter__(self) -> BatchSession:
        self._engine.turn.acquire()
        self._engine.limit = self._slots
        self._worker.start()
        return self

    def __exit__(self, *exc) -> None:
        with self._cv:
            self._closing = True
            self._cv.notify_all()
        self._worker.join()
        self._engine.turn.release()

    @contextmanager
    def client(self, k: int):
        """Mark the calling thread as client ``k`` until the block ends (then it counts as finished)."""
        self._local.client = k
        try:
            yield self
        finally:
            with self._cv:
                self._finished += 1
                self._cv.notify_all()

    # -- the LLM protocol ------------------------------------------------------------------
    def count_tokens(self, text: str) -> int:
        return self._llm.count_tokens(text)

    def truncate(self, text: str, max_tokens: int) -> tuple[str, bool]:
        return self._llm.truncate(text, max_tokens)

    def chat(self, messages, *, max_tokens: int, purpose: str, grammar: str | None = None) -> LLMCall:
        """As :meth:`LlamaCppLLM.chat <vericite.engine.llm.llama_cpp.LlamaCppLLM.chat>`, decoded beside the other
        clients' calls."""
        llm = self._llm
        with llm._lock:
            tokens = self._tokens(messages, purpose)
            eos = llm._llm.token_eos()
            stops = [] if isinstance(messages, str) or eos == -1 else [vocab_text(self._engine.vocab, eos).encode("utf-8")]
        room = llm.n_ctx - len(tokens)
        cap = room if not max_tokens or max_tokens <= 0 else min(max_tokens, room)
        req = _Request(self._client(), 0, purpose, tokens, cap, grammar, None, ("", ""), [x for x in stops if x])
        return self._wait(req)[0]

    def yes_probability(self, messages, *, purpose: str, yes: str = "Yes", no: str = "No") -> tuple[float, LLMCall]:
        """As :meth:`LlamaCppLLM.yes_probability <vericite.engine.llm.llama_cpp.LlamaCppLLM.yes_probability>`."""
        llm = self._llm
        with llm._lock:
            tokens = self._tokens(messages, purpose)
            ids = tuple(llm._llm.tokenize(w.encode("utf-8"), add_bos=False, special=False)[0] for w in (yes, no))
        req = _Request(self._client(), 0, purpose, tokens, 0, None, ids, (yes, no), [])
        call, p = self._wait(req)
        return p, call

    # -- inside ----------------------------------------------------------------------------
    def _client(self) -> int:
        k = getattr(self._local, "client", None)
        if k is None:
            raise RuntimeError("BatchSession calls must come from a thread inside `with session.client(k):`")
        return k

    def _tokens(self, messages, purpose: str) -> list[int]:
        tokens = self._llm._prompt_tokens(messages)
        if len(tokens) >= self._llm.n_ctx:
            raise InferenceError(f"'{purpose}': prompt of {len(tokens)} tokens does not fit n_ctx={self._llm.n_ctx}")
        return tokens

    def _wait(self, req: _Request):
        with self._cv:
            if isinstance(self._error, Cancelled):
                raise self._error
            if self._error is not None:
                raise InferenceError(f"llama.cpp batch failed before '{req.purpose}': {self._error}") from self._error
            req.order, self._order = self._order, self._order + 1
            self._queue.append(req)
            self._calls += 1
            self._cv.notify_all()
        return req.future.result()

    def _ready(self) -> bool:
        """Every client that has not finished is waiting for an answer (so a step's calls are fixed)."""
        return self._calls + self._finished >= self._clients

    def _run(self) -> None:
        eng, llm = self._engine, self._llm
        waiting: list[_Request] = []
        while True:
            with self._cv:
                self._cv.wait_for(lambda: self._closing or (self._ready() and (self._queue or waiting or eng.active)))
                if not (self._queue or waiting or eng.active):
                    return  # closing with nothing left
                waiting += self._queue
                self._queue = []
            try:
                cancel.check()  # a stopped question ends the session before its next step
                with llm._lock:
                    waiting, refused = eng.admit(waiting)
                    self.peak = max(self.peak, len(eng.active))
                    done = eng.step()
            except BaseException as e:  # noqa: BLE001  handed to every waiting client
                with llm._lock:
                    failed = eng.abandon()
                with self._cv:
                    self._error = e
                    failed += waiting + self._queue
                    self._queue = []
                    self._calls -= len(failed)
                for r in failed:
                    if not r.future.done():
                        r.future.set_exception(e if isinstance(e, (InferenceError, Cancelled)) else
                                               InferenceError(f"llama.cpp call {r.purpose!r} on {llm.name} failed: {e}"))
                return
            with self._cv:  # the answered clients are busy again until they call or finish
                self._calls -= len(done) + len(refused)
            for req, call, p in done:
                req.future.set_result((call, p))
            with self._cv:
                self._cv.notify_all()
