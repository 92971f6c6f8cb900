"""Premise-hypothesis cache: P(entailment) scores keyed by (model id, premise, hypothesis).

An in-memory LRU bounded by entry count, optionally backed by an on-disk sqlite store so that an
evaluation rerun (the same answers checked again) costs no NLI compute. Thread-safe.

The key is ``sha256(model_id \\0 premise \\0 hypothesis)`` (32 bytes): the model id must change
whenever the scores would (``OnnxCrossEncoder.cache_id`` includes the ONNX file's sha256 and the
windowing settings), so a store never serves another model's scores.
"""
from __future__ import annotations

import hashlib
import logging
import sqlite3
import threading
from collections import OrderedDict
from pathlib import Path
from typing import Sequence

from ..errors import ConfigError

log = logging.getLogger(__name__)

#: Default in-memory bound (entries; one entry is ~150 bytes of Python objects).
DEFAULT_MAX_ENTRIES = 200_000


def pair_key(model_id: str, premise: str, hypothesis: str) -> bytes:
    """The 32-byte sha256 key of one (model, premise, hypothesis) triple."""
    h = hashlib.sha256()
    for part in (model_id, premise, hypothesis):
        h.update(part.encode("utf-8"))
        h.update(b"\0")
    return h.digest()


class ScoreCache:
    """LRU cache of P(entailment) scores, optionally persisted in sqlite.

    Args:
        model_id: identifies the checker and its settings (part of every key).
        max_entries: in-memory LRU bound (entries); the sqlite store is unbounded.
        path: sqlite file for the on-disk store (created if missing), or None for memory only.

    Attributes:
        hits, misses: lookups served / not served (memory or disk), counted per pair.

    Raises:
        ConfigError: ``max_entries`` < 1 or the sqlite file cannot be opened.
    """

    def __init__(self, model_id: str, *, max_entries: int = DEFAULT_MAX_ENTRIES, path: str | Path | None = None):
        if max_entries < 1:
            raise ConfigError(f"cache max_entries must be >= 1, got {max_entries}")
        self.model_id = model_id
        self.max_entries = max_entries
        self.path = Path(path) if path else None
        self.hits = 0
        self.misses = 0
        self.disk_hits = 0
        self._mem: OrderedDict[bytes, float] = OrderedDict()
        self._lock = threading.Lock()
        self._db: sqlite3.Connection | None = None
        if self.path is not None:
            try:
                self.path.parent.mkdir(parents=True, exist_ok=True)
                self._db = sqlite3.connect(str(self.path), check_same_thread=False, isolation_level=None)
                self._db.execute("PRAGMA journal_mode=WAL")
                self._db.execute("CREATE TABLE IF NOT EXISTS scores (key BLOB PRIMARY KEY, score REAL NOT NULL)")
            except sqlite3.Error as e:
                raise ConfigError(f"cannot open the NLI cache store {self.path}: {e}") from e

    def __len__(self) -> int:
        return len(self._mem)

    def get_many(self, pairs: Sequence[tuple[str, str]]) -> list[float | None]:
        """Cached scores for ``pairs`` (None where absent); updates hit/miss counters and LRU order."""
        keys = [pair_key(self.model_id, p, h) for p, h in pairs]
        out: list[float | None] = [None] * len(keys)
        with self._lock:
            missing = []
            for i, k in enumerate(keys):
                v = self._mem.get(k)
                if v is not None:
                    self._mem.move_to_end(k)
                    out[i] = v
                else:
                    missing.append(i)
            if missing and self._db is not None:
                found = self._disk_get([keys[i] for i in missing])
                for i in missing:
                    v = found.get(keys[i])
                    if v is not None:
                        out[i] = v
                        self._remember(keys[i], v)
                        self.disk_hits += 1
            n_hit = sum(v is not None for v in out)
            self.hits += n_hit
            self.misses += len(out) - n_hit
        return out

    def put_many(self, pairs: Sequence[tuple[str, str]], scores: Sequence[float]) -> None:
        """Store scores for ``pairs`` (memory, and the sqlite store when configured)."""
        rows = [(pair_key(self.model_id, p, h), float(s)) for (p, h), s in zip(pairs, scores)]
        with self._lock:
            for k, s in rows:
                self._remember(k, s)
            if self._db is not None and rows:
                self._db.executemany("INSERT OR REPLACE INTO scores (key, score) VALUES (?, ?)", rows)

    def clear_memory(self) -> None:
        """Forget the in-memory scores (the sqlite store, if any, is kept); counters are kept."""
        with self._lock:
            self._mem.clear()

    def stats(self) -> dict:
        """Counters: ``hits``, ``misses``, ``disk_hits``, ``entries`` (in memory), ``hit_rate``."""
        total = self.hits + self.misses
        return {"hits": self.hits, "misses": self.misses, "disk_hits": self.disk_hits, "entries": len(self._mem),
                "hit_rate": round(self.hits / total, 4) if total else 0.0}

    def close(self) -> None:
        """Close the sqlite store (memory entries stay usable)."""
        with self._lock:
            if self._db is not None:
                self._db.close()
                self._db = None

    # -- internals (lock held) ---------------------------------------------------------------
    def _remember(self, key: bytes, score: float) -> None:
        self._mem[key] = score
        self._mem.move_to_end(key)
        while len(self._mem) > self.max_entries:
            self._mem.popitem(last=False)

    def _disk_get(self, keys: list[bytes]) -> dict[bytes, float]:
        assert self._db is not None  # the caller checked, under the lock
        out: dict[bytes, float] = {}
        for b in range(0, len(keys), 500):  # sqlite's bound-parameter limit
            chunk = keys[b:b + 500]
            marks = ",".join("?" * len(chunk))
            for k, s in self._db.execute(f"SELECT key, score FROM scores WHERE key IN ({marks})", chunk):
                out[bytes(k)] = float(s)
        return out
