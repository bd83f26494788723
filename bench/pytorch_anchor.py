"""PyTorch CPU anchor for the lab's benchmark: the same workloads as src/engine/benchWorkloads.ts, in PyTorch, the tool
a user would pick instead for a small experiment on a CPU (the model as described below and in docs/benchmarks.md).

  W1  train step: causal transformer (vocab 64, context 128, width 64, 2 pre-LN layers, 4 heads, MLP 256), batch 64,
      masked weighted token cross-entropy, forward + backward + Adam (eps 1e-8).
  W2  rollout: 64 sequences, 64-token prompt, 32 tokens sampled one at a time, with a KV cache ('cached') and with
      a full recompute of the sequence for every token ('uncached').
  loss  the loss path at W1's shape, logits [64, 127, 64]: GRPO (clipped ratio, k3 KL to a reference with β 0.01,
      entropy) + OPD (exact reverse KL to teacher logits), token-mean over action positions, gradient w.r.t. logits.

Prints ONE JSON object on stdout (timings in ms: median/min/max after warm-up, like `npm run bench`); nothing else.
`npm run bench -- --anchor` runs it and quotes lab/PyTorch ratios from the same invocation.
Usage: python3 bench/pytorch_anchor.py [--threads N] [--steps N] [--rollouts N] [--warmup N] [--seed N]
                                       [--workloads w1,w2cached,w2uncached,loss] [--device cpu|cuda]
--device cuda (PyTorch 2.x with a GPU) times the same workloads on the GPU, synchronising before each clock read: the
figure to hold the lab's webgpu backend against on that GPU. `npm run bench -- --anchor` always runs the CPU.
--threads defaults to the machine's CPU count: some builds (Debian's torch 1.13) start with 1 thread.
Debian's python3-torch is 1.13, which predates F.scaled_dot_product_attention: the same causal attention
(softmax(QKᵀ/√d + causal mask)·V) is supplied when it is missing.
"""
import argparse, json, math, os, platform, sys, time

try:
    import torch
    import torch.nn as nn
    import torch.nn.functional as F
except ImportError as e:  # the caller reports this; exit code 3 = "no PyTorch here"
    print(json.dumps({"available": False, "reason": f"import torch failed: {e}"}))
    sys.exit(3)

V, T, D, L, H, B = 64, 128, 64, 2, 4, 64
PROMPT, NEW_TOKENS = 64, 32
WORKLOADS = ("w1", "w2cached", "w2uncached", "loss")
DEVICE = "cpu"  # --device; "cuda" makes it torch's default device (set in main)
ACTION_HEAD, ACTION_ARG, OBSERVATION, PROMPT_CLASS = 2, 3, 4, 0  # TokenClass ids of src/core/env/types.ts


def attention(q, k, v, causal):
    if hasattr(F, "scaled_dot_product_attention"):
        return F.scaled_dot_product_attention(q, k, v, is_causal=causal)
    att = (q @ k.transpose(-2, -1)) / math.sqrt(q.shape[-1])
    if causal:
        t = q.shape[-2]
        att = att.masked_fill(~torch.ones(t, t, dtype=torch.bool).tril(), float("-inf"))
    return F.softmax(att, dim=-1) @ v


class Block(nn.Module):
    def __init__(s):
        super().__init__()
        s.ln1, s.att, s.proj = nn.LayerNorm(D), nn.Linear(D, 3 * D), nn.Linear(D, D)
        s.ln2, s.fc, s.out = nn.LayerNorm(D), nn.Linear(D, 4 * D), nn.Linear(4 * D, D)

    def forward(s, x, cache=None):
        """x [b, t, D]; cache: None, or a dict holding this layer's keys/values [b, H, t_past, D/H] (updated)."""
        b, t, _ = x.shape
        q, k, v = (z.view(b, t, H, D // H).transpose(1, 2) for z in s.att(s.ln1(x)).split(D, 2))
        causal = True
        if cache is not None:
            if "k" in cache:
                k, v = torch.cat([cache["k"], k], 2), torch.cat([cache["v"], v], 2)
                causal = False  # one new query attends to every cached position
            cache["k"], cache["v"] = k, v
        y = attention(q, k, v, causal).transpose(1, 2).reshape(b, t, D)
        x = x + s.proj(y)
        return x + s.out(F.gelu(s.fc(s.ln2(x))))


class LM(nn.Module):
    def __init__(s):
        super().__init__()
        s.emb, s.pos = nn.Embedding(V, D), nn.Embedding(T, D)
        s.blocks = nn.ModuleList(Block() for _ in range(L))
        s.ln, s.head = nn.LayerNorm(D), nn.Linear(D, V)

    def forward(s, idx, caches=None, offset=0):
        x = s.emb(idx) + s.pos(torch.arange(offset, offset + idx.shape[1]))
        for i, blk in enumerate(s.blocks):
            x = blk(x, None if caches is None else caches[i])
        return s.head(s.ln(x))


def stats(ms):
    s = sorted(ms)
    return {"medianMs": round(s[len(s) // 2], 1), "minMs": round(s[0], 1), "maxMs": round(s[-1], 1), "n": len(s)}


def sync():
    """Waits for queued GPU work, so that a clock read after it counts that work (a no-op on the CPU)."""
    if DEVICE == "cuda":
        torch.cuda.synchronize()


def timed(f, warmup, n):
    for _ in range(warmup):
        f()
    ts = []
    for _ in range(n):
        sync()
        t0 = time.perf_counter()
        f()
        sync()
        ts.append(1000 * (time.perf_counter() - t0))
    return stats(ts)


def bench_w1(a):
    m = LM()
    opt = torch.optim.Adam(m.parameters(), 1e-3, eps=1e-8)
    idx = torch.randint(0, V, (B, T))
    w = torch.rand(B, T - 1)

    def step():
        lp = F.log_softmax(m(idx[:, :-1]), -1).gather(-1, idx[:, 1:, None]).squeeze(-1)
        loss = -(lp * w).sum() / w.sum()
        opt.zero_grad()
        loss.backward()
        opt.step()

    return {**timed(step, a.warmup, a.steps), "parameters": sum(p.numel() for p in m.parameters())}


def bench_w2(a):
    m = LM()
    prompts = torch.randint(0, V, (B, PROMPT))

    def uncached():
        x = prompts
        for _ in range(NEW_TOKENS):
            nxt = torch.multinomial(F.softmax(m(x)[:, -1], -1), 1)
            x = torch.cat([x, nxt], 1)

    def cached():
        caches = [{} for _ in range(L)]
        logits = m(prompts, caches)[:, -1]
        for i in range(NEW_TOKENS):
            nxt = torch.multinomial(F.softmax(logits, -1), 1)
            if i + 1 < NEW_TOKENS:
                logits = m(nxt, caches, PROMPT + i)[:, -1]

    out = {}
    with torch.no_grad():
        for name, f in (("cached", cached), ("uncached", uncached)):
            if "w2" + name in a.workloads:
                out[name] = timed(f, 1, a.rollouts)
    if "cached" in out and "uncached" in out:
        out["cacheSpeedup"] = round(out["uncached"]["medianMs"] / out["cached"]["medianMs"], 1)
    return out


def bench_loss(a):
    Tm = T - 1
    z = ((torch.rand(B, Tm, V) * 2 - 1) * 4).requires_grad_()
    teacher = (torch.rand(B, Tm, V) * 2 - 1) * 4
    targets = torch.randint(0, V, (B, Tm))
    classes = torch.tensor([ACTION_HEAD, ACTION_ARG, OBSERVATION, PROMPT_CLASS])[torch.randint(0, 4, (B, Tm))]
    old, ref, teach_lp = (torch.rand(B, Tm) * 2 - 5 for _ in range(3))
    adv = torch.rand(B, 1) * 2 - 1
    mask = ((classes == ACTION_HEAD) | (classes == ACTION_ARG)).float()

    def masked_mean(x):
        return (x * mask).sum() / mask.sum().clamp(min=1)

    def step():
        logp = F.log_softmax(z, -1)
        lp = logp.gather(-1, targets[..., None]).squeeze(-1)
        ratio = torch.exp((lp - old).clamp(-20, 20))
        pg = -torch.minimum(ratio * adv, ratio.clamp(0.8, 1.2) * adv)
        d = (ref - lp).clamp(-20, 20)
        k3 = torch.exp(d) - d - 1
        grpo = masked_mean(pg) + 0.01 * masked_mean(k3)
        with torch.no_grad():  # the entropy statistic (no gradient), as the lab computes it
            masked_mean(-(logp.exp() * logp).sum(-1))
        kl = (logp.exp() * (logp - F.log_softmax(teacher, -1))).sum(-1)
        loss = grpo + masked_mean(kl)
        (g,) = torch.autograd.grad(loss, z)
        g.abs().sum().item()

    return {**timed(step, a.warmup, a.steps), "shape": [B, Tm, V]}


def main():
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--threads", type=int, default=os.cpu_count() or 1)
    p.add_argument("--steps", type=int, default=10)
    p.add_argument("--rollouts", type=int, default=3)
    p.add_argument("--warmup", type=int, default=3)
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--workloads", default=",".join(WORKLOADS))
    p.add_argument("--device", choices=("cpu", "cuda"), default="cpu")
    a = p.parse_args()
    a.workloads = [w for w in a.workloads.split(",") if w]
    for w in a.workloads:
        if w not in WORKLOADS:
            p.error(f"unknown workload '{w}' (expected {', '.join(WORKLOADS)})")
    if a.device == "cuda":
        if not torch.cuda.is_available() or not hasattr(torch, "set_default_device"):
            print(json.dumps({"available": False, "reason": "--device cuda needs PyTorch 2.x with a CUDA GPU"}))
            sys.exit(3)
        global DEVICE
        DEVICE = "cuda"
        torch.set_default_device("cuda")
    default_threads = torch.get_num_threads()
    torch.set_num_threads(a.threads)
    torch.manual_seed(a.seed)
    out = {
        "available": True,
        "torch": torch.__version__,
        "python": platform.python_version(),
        "threads": torch.get_num_threads(),
        "defaultThreads": default_threads,
        "cpuCount": os.cpu_count(),
        "device": torch.cuda.get_device_name() if DEVICE == "cuda" else "cpu",
        "w1_train_step": bench_w1(a) if "w1" in a.workloads else "skipped",
        "w2_rollout": bench_w2(a) if any(w.startswith("w2") for w in a.workloads) else "skipped",
        "loss_path": bench_loss(a) if "loss" in a.workloads else "skipped",
    }
    print(json.dumps(out))


if __name__ == "__main__":
    main()
