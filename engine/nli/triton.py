"""The NLI checker served by NVIDIA Triton: a models.toml entry with ``format = "triton"``.

Only the model runs on the server. Tokenization, premise windows (token and sentence ones),
hypothesis parts, length-bucketed batches, the max over windows and the min over parts stay here,
in :class:`~vericite.engine.nli.cross_encoder.OnnxCrossEncoder`: :class:`TritonRunner` replaces its in-process
ONNX Runtime session (:class:`~vericite.engine.nli.onnx_scorer.SessionRunner`) and nothing else, so a
pair gets the same score either way (float rounding aside).

Every batch is padded to one of a few fixed widths (:data:`DEFAULT_WIDTH_BUCKETS`, or the ones the
repository's config names): Triton's dynamic batcher joins only requests of one shape, so fixed
widths let it batch the requests of different callers (threads, processes, machines).

The client is ``tritonclient[http]`` (the ``triton`` extra). At load the server must answer
``/v2/health/ready`` and have the model ready; the model's metadata gives the input and output
names and types, its config ``max_batch_size`` (the client sends no more rows per request) and the
parameters ``vericite export triton`` writes (the served ONNX file's sha256, checked against the
entry's ``sha256`` when it has one; the width buckets).
"""
from __future__ import annotations

import logging
import threading
from collections.abc import Sequence
from urllib.parse import urlsplit

import numpy as np

from ..errors import ConfigError, InferenceError, ModelFileError
from .batching import DEFAULT_MAX_BATCH

log = logging.getLogger(__name__)

#: Padded widths a batch is rounded up to (those up to the entry's max_length, then max_length): every 16
#: tokens up to 128 (most rows are short sentence windows), then every 32, then every 64. Coarser buckets
#: cost compute: (16, 32, 64, 96, 128, 192, 256, 320) padded 170 SNLI + HotpotQA pairs' batches to +35%
#: tokens (+83% in the quadratic attention term) over padding each batch to its longest row; these to +17%
#: (+34%). Finer ones would leave Triton fewer same-shape requests to join.
DEFAULT_WIDTH_BUCKETS = (16, 32, 48, 64, 80, 96, 112, 128, 160, 192, 224, 256, 288, 320, 384, 448, 512)
#: Model config parameters written by `vericite export triton` and read here.
PARAM_SHA256 = "vericite_onnx_sha256"
PARAM_BUCKETS = "vericite_width_buckets"
PARAM_MAX_LENGTH = "vericite_max_length"
#: Triton datatype -> numpy dtype of the inputs this client can send.
_DTYPES = {"INT64": np.int64, "INT32": np.int32}


def width_buckets(max_length: int, buckets: Sequence[int] = DEFAULT_WIDTH_BUCKETS) -> tuple[int, ...]:
    """``buckets`` up to ``max_length``, and ``max_length`` itself (no row is longer)."""
    return tuple(sorted({b for b in buckets if 0 < b < max_length} | {max_length}))


def _host_port(url: str) -> tuple[str, bool]:
    """``("host:port", ssl)`` of an http(s) URL, as tritonclient takes it (a path is not allowed)."""
    parts = urlsplit(url)
    if parts.scheme not in ("http", "https") or not parts.netloc:
        raise ConfigError(f"Triton url {url!r} must look like http://host:port")
    if parts.path.strip("/"):
        raise ConfigError(f"Triton url {url!r}: give the server root (http://host:port), not a path")
    return parts.netloc, parts.scheme == "https"


class TritonRunner:
    """Runs one padded batch on a Triton model over HTTP (a :class:`~vericite.engine.nli.onnx_scorer.BatchRunner`).

    Args:
        url: the server's HTTP root, e.g. ``http://127.0.0.1:8000``.
        model_name: the model's name in the server's repository.
        model_version: "" for the server's choice.
        timeout: seconds for connecting and for each request.
        expect_sha256: the ONNX file the model must be (its config parameter ``vericite_onnx_sha256``);
            "" = not checked.

    Attributes:
        input_names, output_names, input_dtypes (numpy), max_batch_size (0: the model does not
        batch), parameters (the model config's string parameters), ep (``"triton"``), label.

    Raises:
        ConfigError: tritonclient is not installed, or the url is malformed.
        ModelFileError: the server is down or not ready, the model is missing or not ready, or it
            is another model than ``expect_sha256`` says (each message names the url and the model).
    """

    what = "Triton"
    ep = "triton"
    intra_op_threads = None

    def __init__(self, url: str, model_name: str, *, model_version: str = "", timeout: float = 60.0,
                 expect_sha256: str = ""):
        try:
            import tritonclient.http  # noqa: F401
        except ImportError as e:
            raise ConfigError(f"format = 'triton' needs tritonclient: pip install -e '.[triton]' ({e})") from e
        self.url = url.rstrip("/")
        self._host, self._ssl = _host_port(self.url)
        self.model_name = model_name
        self.model_version = str(model_version or "")
        self.timeout = float(timeout)
        self.label = model_name
        self._local = threading.local()  # tritonclient's client is not thread-safe: one per thread
        where = f"Triton at {self.url}"
        client = self._client()
        try:
            ready = client.is_server_ready()
        except Exception as e:  # connection refused, DNS, timeouts: geventhttpclient / socket errors
            raise ModelFileError(f"{where} is not reachable ({type(e).__name__}: {e}); start the server on the "
                                 "exported repository (see `vericite export triton`) or correct url") from e
        if not ready:
            raise ModelFileError(f"{where} answers but is not ready (/v2/health/ready); wait for it to load its models")
        try:
            model_ready = client.is_model_ready(model_name, self.model_version)
        except Exception as e:
            raise ModelFileError(f"{where}: could not ask for model {model_name!r}: {e}") from e
        if not model_ready:
            raise ModelFileError(f"{where} has no ready model {model_name!r}"
                                 f"{' version ' + self.model_version if self.model_version else ''} "
                                 f"(its repository: {self._repository_index(client)}); correct model_name or "
                                 "load the model")
        try:
            meta = client.get_model_metadata(model_name, self.model_version)
            config = client.get_model_config(model_name, self.model_version)
        except Exception as e:
            raise ModelFileError(f"{where}: could not read model {model_name!r}'s metadata/config: {e}") from e
        config = config.get("config", config)  # some servers wrap it
        self.input_names = [i["name"] for i in meta["inputs"]]
        self.output_names = [o["name"] for o in meta["outputs"]]
        bad = {i["name"]: i["datatype"] for i in meta["inputs"] if i["datatype"] not in _DTYPES}
        if bad:
            raise ModelFileError(f"{where}: model {model_name!r} takes inputs {bad}; a checker sends token ids "
                                 f"({', '.join(_DTYPES)})")
        self.input_dtypes = {i["name"]: _DTYPES[i["datatype"]] for i in meta["inputs"]}
        self.max_batch_size = int(config.get("max_batch_size", 0))
        self.parameters = {k: str((v or {}).get("string_value", "")) for k, v in (config.get("parameters") or {}).items()}
        served = self.parameters.get(PARAM_SHA256, "")
        if expect_sha256 and served and served != expect_sha256:
            raise ModelFileError(f"{where}: model {model_name!r} serves ONNX sha256 {served}, the entry expects "
                                 f"{expect_sha256}: another model (re-export with `vericite export triton`, or correct "
                                 "sha256 of the entry)")
        if expect_sha256 and not served:
            log.warning("%s: model %r does not state its ONNX sha256 (parameter %s): not checked", where, model_name,
                        PARAM_SHA256)
        log.info("%s: model %r ready (inputs %s, outputs %s, max_batch_size %d)", where, model_name,
                 self.input_names, self.output_names, self.max_batch_size)

    def _client(self):
        client = getattr(self._local, "client", None)
        if client is None:
            import tritonclient.http as httpclient

            client = httpclient.InferenceServerClient(self._host, ssl=self._ssl, connection_timeout=self.timeout,
                                                      network_timeout=self.timeout)
            self._local.client = client
        return client

    @staticmethod
    def _repository_index(client) -> str:
        try:
            index = client.get_model_repository_index()
        except Exception as e:  # only for the message
            return f"unreadable: {e}"
        return ", ".join(f"{m.get('name')} ({m.get('state', '?')})" for m in index) or "empty"

    def __call__(self, feeds: dict[str, np.ndarray], outputs: Sequence[str] | None = None) -> list[np.ndarray]:
        """The model's outputs (``outputs``, default all, in metadata order) for one padded batch.

        Raises:
            InferenceError: the request failed (names the url and the model), or the batch has more
                rows than the model's ``max_batch_size``.
        """
        import tritonclient.http as httpclient

        rows = len(next(iter(feeds.values())))
        if self.max_batch_size and rows > self.max_batch_size:
            raise InferenceError(f"Triton at {self.url}: {rows} rows exceed model {self.model_name!r}'s "
                                 f"max_batch_size {self.max_batch_size}")
        inputs = []
        for name in self.input_names:
            if name not in feeds:
                raise InferenceError(f"Triton at {self.url}, model {self.model_name!r} needs input {name!r}; the "
                                     f"checker has {sorted(feeds)}")
            arr = np.ascontiguousarray(feeds[name], dtype=self.input_dtypes[name])
            inp = httpclient.InferInput(name, list(arr.shape), "INT64" if arr.dtype == np.int64 else "INT32")
            inp.set_data_from_numpy(arr, binary_data=True)
            inputs.append(inp)
        names = list(outputs) if outputs else self.output_names
        wanted = [httpclient.InferRequestedOutput(n, binary_data=True) for n in names]
        try:
            result = self._client().infer(self.model_name, inputs, model_version=self.model_version, outputs=wanted)
        except Exception as e:  # InferenceServerException, connection errors, timeouts
            raise InferenceError(f"Triton at {self.url}, model {self.model_name!r}: request of {rows} rows failed "
                                 f"({type(e).__name__}: {e})") from e
        return [result.as_numpy(n) for n in names]

    def close(self) -> None:
        """Close this thread's connection (others close when their thread ends)."""
        client = getattr(self._local, "client", None)
        if client is not None:
            client.close()
            self._local.client = None


def load_triton_checker(spec, **kwargs):
    """The cross-encoder of a ``format = "triton"`` entry: local tokenizer and windows, the model on Triton.

    ``kwargs`` go to :class:`~vericite.engine.nli.cross_encoder.OnnxCrossEncoder` (``batch_size``, ``batch_tokens``);
    ``providers`` and ``intra_op_threads`` are the server's business and are ignored here.

    Raises:
        ConfigError: not a cross-encoder entry, or tritonclient missing.
        ModelFileError: the local tokenizer is missing; the server or model is not there (see :class:`TritonRunner`).
    """
    from ..config.registry import verify
    from .cross_encoder import OnnxCrossEncoder

    if spec.input_format != "cross-encoder":
        raise ConfigError(f"model {spec.name!r}: format = 'triton' serves cross-encoders only, "
                          f"got input_format {spec.input_format!r}")
    for k in ("providers", "intra_op_threads"):
        if kwargs.pop(k, None) is not None:
            log.debug("%s: %s is set on the Triton server, not here", spec.name, k)
    tokenizer = verify(spec)  # a triton entry's local file is its tokenizer
    runner = TritonRunner(spec.url, spec.model_name, model_version=spec.model_version, timeout=spec.timeout,
                          expect_sha256=spec.sha256)
    served_length = runner.parameters.get(PARAM_MAX_LENGTH, "")
    if served_length and served_length != str(spec.max_length):
        log.warning("%s: the entry's max_length %d differs from the exported %s", spec.name, spec.max_length, served_length)
    buckets = DEFAULT_WIDTH_BUCKETS
    if runner.parameters.get(PARAM_BUCKETS):
        try:
            buckets = tuple(int(b) for b in runner.parameters[PARAM_BUCKETS].split(","))
        except ValueError as e:
            raise ModelFileError(f"Triton at {runner.url}, model {spec.model_name!r}: parameter {PARAM_BUCKETS} = "
                                 f"{runner.parameters[PARAM_BUCKETS]!r} is not a list of widths") from e
    batch = kwargs.pop("batch_size", DEFAULT_MAX_BATCH)
    if runner.max_batch_size:
        batch = min(batch, runner.max_batch_size)
    file_id = spec.sha256 or runner.parameters.get(PARAM_SHA256) or f"{runner.url}/{spec.model_name}/{spec.model_version}"
    return OnnxCrossEncoder(None, tokenizer, max_length=spec.max_length, entailment_index=spec.entailment_index,
                            premise_window=spec.premise_window, sentence_window=spec.sentence_window, name=spec.name,
                            file_sha256=file_id, runner=runner, width_buckets=width_buckets(spec.max_length, buckets),
                            batch_size=batch, **kwargs)
