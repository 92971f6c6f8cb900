"""Stage-2 wall time, in-process llama.cpp vs the same GGUF behind llama-server (N slots).

`vericite bench remote-stage2 --data ../shared/data/hotpotqa.jsonl --limit 5 --llm qwen2.5-coder-0.5b-instruct-q4km
[--parallel N] [--in-process-parallel M]`

``--parallel N`` (default 1: one slot, the documents one after another): the server gets N slots
(``--parallel N``, ``--ctx`` = the entry's context x N, so every slot has the whole context) and
the pipeline through it ``parallel_docs = N`` (the documents' calls sent concurrently, batched by
the server); the in-process side runs ``parallel_docs = M`` (``--in-process-parallel``, default
N: parallel sequences of one llama.cpp context; 1 = one after another).

Per item, in turn (so both see the same machine load): the pipeline with the in-process model, the
model freed, then a llama-server (``vericite.engine.llm.llama_server``, ``--threads`` as the in-process
LLM, flash attention off) on a free 127.0.0.1 port, the pipeline through
:class:`~vericite.engine.llm.openai_compat.OpenAICompatLLM`, the server stopped. One llama.cpp at a time.
Prints per item the stage-2 seconds of both, whether the final answers and the LLM texts are equal,
and the largest gate P(Yes) difference; totals at the end (JSON with ``--json``).
"""
from __future__ import annotations

import argparse
import gc
import json
import socket
import subprocess
import sys
import tempfile
import time
from pathlib import Path


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def _server(gguf: Path, port: int, ctx: int, threads: int, parallel: int = 1):
    import httpx

    proc = subprocess.Popen([sys.executable, "-m", "vericite.engine.llm.llama_server", str(gguf), "--port", str(port),
                             "--ctx", str(ctx * parallel), "--parallel", str(parallel), "--threads", str(threads)],
                            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    deadline = time.monotonic() + 120
    while time.monotonic() < deadline and proc.poll() is None:
        try:
            if httpx.get(f"http://127.0.0.1:{port}/health", timeout=1.0).status_code == 200:
                return proc
        except httpx.TransportError:
            pass
        time.sleep(0.25)
    _stop(proc)
    raise RuntimeError("llama-server did not start within 120 s")


def _stop(proc) -> None:
    if proc.poll() is None:
        proc.terminate()
        try:
            proc.wait(timeout=20)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait(timeout=20)


def _summary(res) -> dict:
    calls = [c for st in res.stages for c in st.llm_calls]
    s2 = res.stages[1].llm_calls
    return {"stage2_s": round(res.stages[1].wall_ms / 1000, 2), "answer": res.answer,
            "stage2_tokens": [sum(c.prompt_tokens_computed for c in s2), sum(c.completion_tokens for c in s2)],
            "stage2_ms": [round(sum(c.prompt_eval_ms for c in s2)), round(sum(c.generation_ms for c in s2))],
            "texts": [(c.purpose, c.text) for c in calls],
            "gates": {c.purpose: c.score for c in res.stages[1].llm_calls if c.purpose.startswith("gate")}}


def main(argv: list[str] | None = None, models_toml: str | None = None) -> int:
    from vericite.engine.loader import build_pipeline, default_llm_threads, default_nli_threads
    from vericite.engine.config.registry import Registry, model_path

    from .datasets import load_items

    ap = argparse.ArgumentParser(prog="vericite bench remote-stage2", description=__doc__.splitlines()[0])
    ap.add_argument("--data", required=True)
    ap.add_argument("--limit", type=int, default=5)
    ap.add_argument("--llm", default="qwen2.5-coder-0.5b-instruct-q4km", help="a gguf LLM entry of models.toml")
    ap.add_argument("--threads", type=int, help="LLM threads, both backends (default: the cores the checker leaves)")
    ap.add_argument("--parallel", type=int, default=1, metavar="N",
                    help="server slots, and parallel_docs through the server (default 1)")
    ap.add_argument("--in-process-parallel", type=int, metavar="M",
                    help="parallel_docs of the in-process run (default: --parallel)")
    ap.add_argument("--json", action="store_true")
    args = ap.parse_args(argv)
    local_par = args.in_process_parallel or args.parallel
    threads = args.threads or default_llm_threads(default_nli_threads())
    reg = Registry.load(models_toml)
    spec = reg.get(args.llm, "llm")
    gguf = model_path(spec)
    items = load_items(args.data, limit=args.limit)
    port = _free_port()
    with tempfile.TemporaryDirectory() as tmp:
        toml = Path(tmp) / "models.toml"
        toml.write_text(reg.source.read_text(encoding="utf-8") + f'''
[models."{spec.name}-server"]
role = "llm"
format = "openai"
server = "llama-server"
base_url = "http://127.0.0.1:{port}"
model = "{spec.name}"
tokenizer_gguf = "{spec.name}"
context = {spec.context}
''' + "".join(f"{k} = {json.dumps(v)}\n" for k, v in spec.profile.items()), encoding="utf-8")
        rows = []
        for it in items:
            pipe = build_pipeline(llm=spec.name, threads=threads, models_toml=models_toml, parallel_docs=local_par)
            try:
                local = _summary(pipe.answer(it["question"], it["docs"]))
            finally:
                pipe.close()
            del pipe
            gc.collect()
            proc = _server(gguf, port, spec.context, threads, args.parallel)
            try:
                pipe = build_pipeline(llm=f"{spec.name}-server", models_toml=str(toml), parallel_docs=args.parallel)
                try:
                    remote = _summary(pipe.answer(it["question"], it["docs"]))
                finally:
                    pipe.close()
                    pipe.llm.close()
            finally:
                _stop(proc)
            dp = [abs(local["gates"][k] - remote["gates"][k]) for k in local["gates"]
                  if local["gates"][k] is not None and remote["gates"].get(k) is not None]
            rows.append({"id": it["id"], "in_process_s": local["stage2_s"], "server_s": remote["stage2_s"],
                         # [prompt tokens evaluated, tokens generated], [prompt-eval ms, generation ms]
                         "in_process_tokens": local["stage2_tokens"], "server_tokens": remote["stage2_tokens"],
                         "in_process_ms": local["stage2_ms"], "server_ms": remote["stage2_ms"],
                         "same_answer": local["answer"] == remote["answer"],
                         "same_llm_texts": local["texts"] == remote["texts"],
                         "max_gate_dp": round(max(dp), 4) if dp else None})
            print(json.dumps(rows[-1]), file=sys.stderr)
    tot = {"items": len(rows), "in_process_s": round(sum(r["in_process_s"] for r in rows), 1),
           "server_s": round(sum(r["server_s"] for r in rows), 1), "threads": threads,
           "server_slots": args.parallel, "in_process_parallel_docs": local_par,
           "same_answer": sum(r["same_answer"] for r in rows), "same_llm_texts": sum(r["same_llm_texts"] for r in rows)}
    for side in ("in_process", "server"):  # per-call rates: prompt tokens/s, generated tokens/s (summed call ms)
        n = [sum(r[f"{side}_tokens"][i] for r in rows) for i in (0, 1)]
        ms = [sum(r[f"{side}_ms"][i] for r in rows) for i in (0, 1)]
        tot[f"{side}_tok_per_s"] = [round(1000 * n[i] / ms[i], 1) if ms[i] else None for i in (0, 1)]
        wall = sum(r[f"{side}_s"] for r in rows)  # generated tokens per second of stage-2 wall (batching's throughput)
        tot[f"{side}_stage2_gen_tok_per_s"] = round(n[1] / wall, 1) if wall else None
    if args.json:
        json.dump({"rows": rows, "totals": tot}, sys.stdout, indent=2)
        sys.stdout.write("\n")
    else:
        for r in rows:
            print(r)
        print(tot)
    return 0


if __name__ == "__main__":
    sys.exit(main())
