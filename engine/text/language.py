"""Which language a text is in: py3langid (langid.py's model, offline, numpy only), restricted to
the languages the sentence splitter knows (pysbd), so every answer gets a splitter that fits it."""
from __future__ import annotations

import threading
from functools import lru_cache

from pysbd.languages import LANGUAGE_CODES

#: Below this normalised probability the detection is a guess (short or mixed text).
MIN_CONFIDENCE = 0.5

_lock = threading.Lock()


@lru_cache(maxsize=1)
def _identifier():
    from py3langid.langid import MODEL_FILE, LanguageIdentifier

    ident = LanguageIdentifier.from_model_file(MODEL_FILE, norm_probs=True)
    ident.set_languages([c for c in sorted(LANGUAGE_CODES) if c in ident.nb_classes])
    return ident


def detect(text: str) -> tuple[str, float]:
    """(ISO 639-1 code, normalised probability in [0, 1]) of ``text``'s language, among the
    languages the splitter knows; ("en", 0.0) for text without letters."""
    if not any(ch.isalpha() for ch in text):
        return "en", 0.0
    with _lock:  # the identifier's model is shared; classify is cheap (~0.05 ms a question)
        code, p = _identifier().classify(text)
    return str(code), float(p)


def detect_or(text: str, fallback: str) -> str:
    """``text``'s language when the detection is confident (>= :data:`MIN_CONFIDENCE`), else ``fallback``."""
    code, p = detect(text)
    return code if p >= MIN_CONFIDENCE else fallback
