// The TeX of every formula in docs/METHODS.md, keyed by the formula as the file writes it (a `code` span, or the
// indented block). The file stays plain Markdown that reads well anywhere; the Method view typesets these with KaTeX,
// as the explain panels do. Code spans not listed here (config keys, metric names, paths) stay code.
// test/app/methodsTeX.test.ts checks that every key still occurs in the file and that no formula-looking span is
// left out.
const T = String.raw;

export const METHODS_TEX: Readonly<Record<string, string>> = {
  // notation
  'x, a₁, o₁, a₂, o₂, …': T`x, a_1, o_1, a_2, o_2, \ldots`,
  x: T`x`,
  aᵢ: T`a_i`,
  oᵢ: T`o_i`,
  A: T`A`,
  O: T`O`,
  π_θ: T`\pi_\theta`,
  π_T: T`\pi_T`,
  'c⁺': T`c^+`,
  // ActObs
  'L_λ(θ) = − [ Σ_{i∈A} log π_θ(y_i | y_<i) + λ · Σ_{i∈O} log π_θ(y_i | y_<i) ] / max(1, |A| + λ|O|)': T`L_\lambda(\theta) = -\frac{\sum_{i\in A}\log\pi_\theta(y_i \mid y_{<i}) + \lambda\sum_{i\in O}\log\pi_\theta(y_i \mid y_{<i})}{\max(1,\ |A| + \lambda|O|)}`,
  '|A| + λ|O|': T`|A| + \lambda|O|`,
  g_act: T`g_{\text{act}}`,
  g_obs: T`g_{\text{obs}}`,
  'cos(g_act, g_obs)': T`\cos(g_{\text{act}}, g_{\text{obs}})`,
  '‖g_obs‖ / ‖g_act‖': T`\lVert g_{\text{obs}}\rVert / \lVert g_{\text{act}}\rVert`,
  // GRPO
  R_i: T`R_i`,
  'Â_i = (R_i − mean(R)) / (std(R) + ε)': T`\hat A_i = \frac{R_i - \operatorname{mean}(R)}{\operatorname{std}(R) + \varepsilon}`,
  Â_i: T`\hat A_i`,
  'r_t = exp(log π_θ(y_t) − log π_old(y_t))': T`r_t = \exp\big(\log\pi_\theta(y_t) - \log\pi_{\text{old}}(y_t)\big)`,
  'min(r_t Â, clip(r_t, 1 − ε_low, 1 + ε_high) Â)': T`\min\big(r_t \hat A,\ \operatorname{clip}(r_t, 1 - \varepsilon_{\text{low}}, 1 + \varepsilon_{\text{high}})\,\hat A\big)`,
  'H = −Σ_v π_θ(v) log π_θ(v)': T`H = -\sum_v \pi_\theta(v)\log\pi_\theta(v)`,
  // GRPO safeguards: dual clip, mini-batches, gradient clipping
  'L¹ = −Â r_t': T`L^1 = -\hat A\, r_t`,
  'L² = −Â clip(r_t, 1 − ε_low, 1 + ε_high)': T`L^2 = -\hat A\,\operatorname{clip}(r_t, 1 - \varepsilon_{\text{low}}, 1 + \varepsilon_{\text{high}})`,
  'L_t = max(L¹, L²)                          if Â ≥ 0\nL_t = min(max(L¹, L²), −c·Â)               if Â < 0': T`L_t = \begin{cases} \max(L^1, L^2) & \hat A \ge 0 \\ \min\big(\max(L^1, L^2),\ -c\,\hat A\big) & \hat A < 0 \end{cases}`,
  'c·|Â|': T`c\,|\hat A|`,
  'c·Â': T`c\,\hat A`,
  'r_t = c': T`r_t = c`,
  'log π_old': T`\log\pi_{\text{old}}`,
  'r_t = 1': T`r_t = 1`,
  'min(1, clip / (‖∇‖₂ + 10⁻⁶))': T`\min\big(1,\ \mathit{clip} / (\lVert\nabla\rVert_2 + 10^{-6})\big)`,
  '‖∇‖₂': T`\lVert\nabla\rVert_2`,
  // OPD
  'ℓ_t = log π_θ(y_t) − log π_T(y_t | c⁺)': T`\ell_t = \log\pi_\theta(y_t) - \log\pi_T(y_t \mid c^+)`,
  "g_k = token-mean over the step's action tokens of (log π_T − log π_old)": T`g_k = \operatorname{token\text{-}mean}_{\text{action tokens of step } k}\big(\log\pi_T - \log\pi_{\text{old}}\big)`,
  'K_k = −g_k': T`K_k = -g_k`,
  'r_t · (exp(−ℓ_t) − 1 + ℓ_t)': T`r_t\,\big(e^{-\ell_t} - 1 + \ell_t\big)`,
  'r_t = exp(min(log π_θ − log π_old, 10))': T`r_t = \exp\big(\min(\log\pi_\theta - \log\pi_{\text{old}},\ 10)\big)`,
  '−ℓ': T`-\ell`,
  'Σ_v π_θ(v) (log π_θ(v) − log π_T(v))': T`\sum_v \pi_\theta(v)\big(\log\pi_\theta(v) - \log\pi_T(v)\big)`,
  'mean(ℓ_t)': T`\operatorname{mean}(\ell_t)`,
  'E_{y∼π}[∇ log π(y)] = 0': T`\mathbb{E}_{y\sim\pi}\big[\nabla\log\pi(y)\big] = 0`,
  'L_GRPO + λ_opd · L_OPD': T`L_{\text{GRPO}} + \lambda_{\text{opd}}\cdot L_{\text{OPD}}`,
  // distillation forms
  'log π_T − log π_old': T`\log\pi_T - \log\pi_{\text{old}}`,
  'π_T(O)': T`\pi_T(O)`,
  'Σ_{v∈top-k(π_T)} π_T(v)(log π_T(v) − log π_θ(v)) + π_T(O)(log π_T(O) − log π_θ(O))': T`\sum_{v\in\operatorname{top-}k(\pi_T)} \pi_T(v)\big(\log\pi_T(v) - \log\pi_\theta(v)\big) + \pi_T(O)\big(\log\pi_T(O) - \log\pi_\theta(O)\big)`,
  'k = student.distill.topK': T`k = \texttt{student.distill.topK}`,
  'k ≥ V': T`k \ge V`,
  'c_t = −(log π_old(y_t) − log π_T(y_t))': T`c_t = -\big(\log\pi_{\text{old}}(y_t) - \log\pi_T(y_t)\big)`,
  '−r_t·c_t': T`-r_t\,c_t`,
  'KL(π_T ‖ π_θ)': T`\mathrm{KL}(\pi_T \,\Vert\, \pi_\theta)`,
  'KL(π_θ ‖ π_T)': T`\mathrm{KL}(\pi_\theta \,\Vert\, \pi_T)`,
  'β·KL(π_T ‖ M) + (1 − β)·KL(π_θ ‖ M)': T`\beta\,\mathrm{KL}(\pi_T \,\Vert\, M) + (1 - \beta)\,\mathrm{KL}(\pi_\theta \,\Vert\, M)`,
  'M = β·π_T + (1 − β)·π_θ': T`M = \beta\,\pi_T + (1 - \beta)\,\pi_\theta`,
  'β = student.distill.beta': T`\beta = \texttt{student.distill.beta}`,
  'N = student.distill.refreshEvery': T`N = \texttt{student.distill.refreshEvery}`,
  // the gate
  'λ_opd ≥ 0': T`\lambda_{\text{opd}} \ge 0`,
  K̄_m: T`\bar K_m`,
  cur: T`\mathit{cur}`,
  prev: T`\mathit{prev}`,
  S_prev: T`S_{\text{prev}}`,
  '|prev| > ε': T`|\mathit{prev}| > \varepsilon`,
  'ρ = (prev − cur) / prev': T`\rho = \frac{\mathit{prev} - \mathit{cur}}{\mathit{prev}}`,
  'η = (S + S_prev) / (2 · S_T)': T`\eta = \frac{S + S_{\text{prev}}}{2\,S_T}`,
  '|prev| ≤ ε': T`|\mathit{prev}| \le \varepsilon`,
  'prev ← cur': T`\mathit{prev} \leftarrow \mathit{cur}`,
  'S_prev ← S': T`S_{\text{prev}} \leftarrow S`,
  'ρ ≤ δ': T`\rho \le \delta`,
  'η ≥ γ': T`\eta \ge \gamma`,
  'λ_opd ← 0': T`\lambda_{\text{opd}} \leftarrow 0`,
  'trigger_step ← step': T`\texttt{trigger\_step} \leftarrow \texttt{step}`,
  // evaluation
  '1 − C(n − c, k) / C(n, k)': T`1 - \binom{n-c}{k} \Big/ \binom{n}{k}`,
  'KL(π_init ‖ π)': T`\mathrm{KL}(\pi_{\text{init}} \,\Vert\, \pi)`,
};

/** Characters that mark a code span as a formula rather than a key, a metric name or a path. */
export const FORMULA_MARK = /[=≤≥←·Σπθρℓ∇‖λεÂ̄⁺ᵢ₁]|^[A-Zxo](_\w+)?$/u;
