"""GGUF (Q4_K_M, dequantized by transformers' gguf reader) -> an HF model folder vLLM can serve offline."""
import sys, torch
from transformers import AutoModelForCausalLM, AutoTokenizer
torch.set_num_threads(1)
src, out = sys.argv[1], sys.argv[2]
import os
d, f = os.path.dirname(src), os.path.basename(src)
tok = AutoTokenizer.from_pretrained(d, gguf_file=f)
tok.save_pretrained(out)
m = AutoModelForCausalLM.from_pretrained(d, gguf_file=f, torch_dtype=torch.bfloat16)
# the weights are plain bf16 once read; drop the GGUF marker so they can be written as safetensors
if hasattr(m.config, "quantization_config"):
    del m.config.quantization_config
m.hf_quantizer = None
m.is_quantized = False
m.save_pretrained(out)
print("ok", sum(p.numel() for p in m.parameters()))
