"""Runs ../shared/anchors/pytorch_w1_w2.py (the PyTorch anchor for the lab's W1/W2 benchmark) on this machine.

Debian's python3-torch is 1.13, which predates F.scaled_dot_product_attention; this wrapper supplies the same
causal attention (softmax(QKᵀ/√d + causal mask)·V) when it is missing, then runs the anchor unchanged.
Usage: /usr/bin/python3 bench/pytorch_anchor.py [path/to/pytorch_w1_w2.py]
"""
import math, os, runpy, sys
import torch
import torch.nn.functional as F

if not hasattr(F, "scaled_dot_product_attention"):
    def scaled_dot_product_attention(q, k, v, is_causal=False):
        t = q.shape[-2]
        att = (q @ k.transpose(-2, -1)) / math.sqrt(q.shape[-1])
        if is_causal:
            mask = torch.ones(t, t, dtype=torch.bool).tril()
            att = att.masked_fill(~mask, float("-inf"))
        return F.softmax(att, dim=-1) @ v
    F.scaled_dot_product_attention = scaled_dot_product_attention

here = os.path.dirname(os.path.abspath(__file__))
anchor = sys.argv[1] if len(sys.argv) > 1 else os.path.join(here, "..", "..", "shared", "anchors", "pytorch_w1_w2.py")
print(f"torch {torch.__version__}, anchor {os.path.normpath(anchor)}")
runpy.run_path(anchor, run_name="__main__")
