"""A local Triton server on a model repository, from the ``tritonserver`` binary the nvidia-pytriton
wheel ships (no container): for tests, benchmarks and machines without Docker.

That binary comes with Triton's Python backend only (no onnxruntime backend), so it serves
repositories written with ``vericite export triton --backend python`` (model.py runs the ONNX file with
ONNX Runtime inside Triton); a repository with ``platform: "onnxruntime_onnx"`` needs a full Triton
(the NGC container) or ``--backend-directory`` pointing at an onnxruntime backend.

The Python backend's stub process runs this interpreter's version (the wheel has one stub per Python
3.8-3.13). Its embedded interpreter ignores PYTHONPATH and takes its prefix from the ``python`` first
on PATH, so the server gets a throwaway venv skeleton (pyvenv.cfg, bin/python, one .pth file) whose
site-packages are, in order, :data:`STUB_SITE` and this environment's (for onnxruntime). Why a
folder of its own: the stub's numpy must be 1.x (its pybind11 predates numpy 2's dtype layout and
reads an output tensor's item size as 0: "output tensor shape does not match size of output"),
while the engine keeps numpy 2.

    python -m vericite.export.triton_server REPO --port 8000

nvidia-pytriton pins numpy < 2 while the engine uses numpy 2, so it is installed without its
dependencies (``pip install --no-deps nvidia-pytriton``; the Makefile does): only the binary and
its libraries are used here, never the pytriton Python package.
"""
from __future__ import annotations

import argparse
import importlib.util
import logging
import os
import shutil
import signal
import socket
import subprocess
import sys
import sysconfig
import tempfile
import time
import urllib.error
import urllib.request
from pathlib import Path

log = logging.getLogger(__name__)

#: how nvidia-pytriton is installed (the binary only; its numpy < 2 pin would downgrade the engine's)
INSTALL_HINT = "pip install --no-deps nvidia-pytriton==0.7.0"
#: numpy 1.x for the Python backend's stub only ($VERICITE_TRITON_STUB_SITE, else inside this environment)
STUB_SITE = Path(os.environ.get("VERICITE_TRITON_STUB_SITE") or Path(sys.prefix) / "triton-stub")
STUB_HINT = f"pip install --no-deps --target {STUB_SITE} numpy==1.26.4"


class TritonServerError(RuntimeError):
    """The local Triton server could not be found, started, or did not become ready."""


def pytriton_dist() -> Path:
    """The ``tritonserver`` folder inside the installed nvidia-pytriton wheel (bin/, backends/, python_backend_stubs/).

    Raises:
        TritonServerError: nvidia-pytriton is not installed (names the install command).
    """
    spec = importlib.util.find_spec("pytriton")  # finds the package without importing it (its deps are absent)
    if spec is None or not spec.submodule_search_locations:
        raise TritonServerError(f"no tritonserver binary: nvidia-pytriton is not installed ({INSTALL_HINT})")
    dist = Path(list(spec.submodule_search_locations)[0]) / "tritonserver"
    if not (dist / "bin" / "tritonserver").is_file():
        raise TritonServerError(f"{dist}/bin/tritonserver missing: reinstall nvidia-pytriton ({INSTALL_HINT})")
    return dist


def free_port() -> int:
    """A free TCP port on the loopback interface (the OS's choice)."""
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


class LocalTritonServer:
    """``tritonserver`` on ``repository``, HTTP on 127.0.0.1:``port`` only (gRPC and metrics off).

    Use as a context manager: it starts, waits for ``/v2/health/ready``, and stops (SIGTERM, then
    SIGKILL) on exit. The server's log goes to a file (``log_path``); its tail is in every error.

    Args:
        repository: the model repository (``vericite export triton --backend python``).
        port: HTTP port (default: a free one).
        ready_timeout: seconds to wait for the models to load.
        threads: OMP/ONNX Runtime thread caps for the Python backend's processes.

    Attributes:
        url: ``http://127.0.0.1:PORT``.
    """

    def __init__(self, repository: str | Path, *, port: int | None = None, ready_timeout: float = 60.0,
                 threads: int = 1):
        self.repository = Path(repository).resolve()
        self.port = port or free_port()
        self.url = f"http://127.0.0.1:{self.port}"
        self.ready_timeout = ready_timeout
        self.threads = threads
        self.proc: subprocess.Popen | None = None
        self._work: tempfile.TemporaryDirectory | None = None
        self.log_path: Path | None = None

    def _backends(self, dist: Path, work: Path) -> Path:
        """A backends folder whose python/ has this interpreter's stub (Triton looks for it there)."""
        version = f"{sys.version_info[0]}.{sys.version_info[1]}"
        stub = dist / "python_backend_stubs" / version / "triton_python_backend_stub"
        if not stub.is_file():
            raise TritonServerError(f"nvidia-pytriton has no Python backend stub for Python {version} ({stub})")
        python = work / "backends" / "python"
        python.mkdir(parents=True)
        for f in (dist / "backends" / "python").iterdir():
            os.symlink(f, python / f.name)
        shutil.copy(stub, python / "triton_python_backend_stub")
        return work / "backends"

    def _stub_env(self, work: Path) -> Path:
        """A venv skeleton for the stub: STUB_SITE (numpy 1.x) first, then this environment's site-packages."""
        env = work / "stub-env"
        version = f"python{sys.version_info[0]}.{sys.version_info[1]}"
        site = env / "lib" / version / "site-packages"
        site.mkdir(parents=True)
        (env / "bin").mkdir()
        base = Path(getattr(sys, "_base_executable", sys.executable)).resolve()
        os.symlink(base, env / "bin" / "python")
        os.symlink(base, env / "bin" / "python3")
        (env / "pyvenv.cfg").write_text(f"home = {base.parent}\ninclude-system-site-packages = false\n"
                                        f"version = {sys.version_info[0]}.{sys.version_info[1]}.{sys.version_info[2]}\n")
        main_site = sysconfig.get_paths()["purelib"]
        (site / "vericite-triton-stub.pth").write_text(f"{STUB_SITE}\nimport site; site.addsitedir({main_site!r})\n")
        return env

    def _env(self, dist: Path, stub_env: Path) -> dict[str, str]:
        env = dict(os.environ)
        libs = dist.parent.parent / "nvidia_pytriton.libs"
        env["LD_LIBRARY_PATH"] = os.pathsep.join(p for p in (str(libs), sysconfig.get_config_var("LIBDIR") or "",
                                                             env.get("LD_LIBRARY_PATH", "")) if p)
        env.pop("PYTHONPATH", None)
        env.pop("PYTHONHOME", None)
        env["PATH"] = os.pathsep.join((str(stub_env / "bin"), env.get("PATH", "")))
        for k in ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS"):
            env.setdefault(k, str(self.threads))
        return env

    def start(self) -> "LocalTritonServer":
        """Start the server and wait until it is ready.

        Raises:
            TritonServerError: no binary, the process exited, or not ready in time (with its log's tail).
        """
        if not self.repository.is_dir():
            raise TritonServerError(f"model repository {self.repository} not found (write it with `vericite export triton`)")
        dist = pytriton_dist()
        if not (STUB_SITE / "numpy").is_dir():
            import numpy

            if int(numpy.__version__.split(".")[0]) >= 2:
                raise TritonServerError(f"the Python backend's stub needs numpy 1.x (this environment has "
                                        f"{numpy.__version__}): {STUB_HINT}")
        self._work = tempfile.TemporaryDirectory(prefix="vericite-triton-")
        work = Path(self._work.name)
        backends = self._backends(dist, work)
        stub_env = self._stub_env(work)
        self.log_path = work / "tritonserver.log"
        cmd = [str(dist / "bin" / "tritonserver"), "--model-repository", str(self.repository),
               "--backend-directory", str(backends), "--cache-directory", str(dist / "caches"),
               "--http-address", "127.0.0.1", "--http-port", str(self.port), "--allow-grpc", "false",
               "--allow-metrics", "false", "--allow-gpu-metrics", "false", "--exit-on-error", "true",
               "--strict-readiness", "true", "--disable-auto-complete-config", "--log-verbose", "0"]
        log.info("starting %s", " ".join(cmd))
        with self.log_path.open("wb") as fh:
            self.proc = subprocess.Popen(cmd, stdout=fh, stderr=subprocess.STDOUT, env=self._env(dist, stub_env),
                                         start_new_session=True)
        deadline = time.monotonic() + self.ready_timeout
        while time.monotonic() < deadline:
            if self.proc.poll() is not None:
                tail = self.log_tail()
                self.stop()
                raise TritonServerError(f"tritonserver exited with {self.proc.returncode} before it was ready:\n{tail}")
            try:
                with urllib.request.urlopen(f"{self.url}/v2/health/ready", timeout=2) as r:
                    if r.status == 200:
                        log.info("Triton ready at %s (repository %s)", self.url, self.repository)
                        return self
            except (urllib.error.URLError, OSError):
                pass
            time.sleep(0.25)
        tail = self.log_tail()
        self.stop()
        raise TritonServerError(f"tritonserver not ready at {self.url} after {self.ready_timeout:.0f} s:\n{tail}")

    def log_tail(self, n: int = 40) -> str:
        """The server's error lines and models that failed to load (UNAVAILABLE), then the last ``n`` lines of its log."""
        if self.log_path is None or not self.log_path.is_file():
            return ""
        lines = self.log_path.read_text(errors="replace").splitlines()
        errors = [ln for ln in lines if ln.startswith("E") or "UNAVAILABLE" in ln]
        return "\n".join([*errors, "...", *lines[-n:]] if errors else lines[-n:])

    def stop(self, timeout: float = 15.0) -> None:
        """SIGTERM the server's process group, SIGKILL it after ``timeout`` s; remove the work folder."""
        if self.proc is not None and self.proc.poll() is None:
            try:
                os.killpg(self.proc.pid, signal.SIGTERM)
                self.proc.wait(timeout)
            except subprocess.TimeoutExpired:
                os.killpg(self.proc.pid, signal.SIGKILL)
                self.proc.wait()
            except ProcessLookupError:
                pass
        if self._work is not None:
            self._work.cleanup()
            self._work = None

    def __enter__(self) -> "LocalTritonServer":
        return self.start()

    def __exit__(self, *exc) -> None:
        self.stop()


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(prog="python -m vericite.export.triton_server",
                                description="Serve a model repository with nvidia-pytriton's tritonserver (HTTP on "
                                            "127.0.0.1 only) until Ctrl-C.")
    p.add_argument("repository", help="written by `vericite export triton OUT --backend python`")
    p.add_argument("--port", type=int, default=8000)
    p.add_argument("--ready-timeout", type=float, default=120.0)
    args = p.parse_args(argv)
    logging.basicConfig(level=logging.INFO, format="%(levelname)s %(name)s: %(message)s", stream=sys.stderr)
    try:
        server = LocalTritonServer(args.repository, port=args.port, ready_timeout=args.ready_timeout).start()
    except TritonServerError as e:
        print(f"error: {e}", file=sys.stderr)
        return 2
    print(f"Triton ready at {server.url}; Ctrl-C stops it", file=sys.stderr)
    try:
        while server.proc is not None and server.proc.poll() is None:
            time.sleep(1)
    except KeyboardInterrupt:
        pass
    finally:
        server.stop()
    return 0


if __name__ == "__main__":
    sys.exit(main())
