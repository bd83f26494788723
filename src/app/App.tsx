// The lab's shell: what RetireLab is, the three methods it teaches, and where each feature lives.
// Training views (charts of K̄_m, ρ, η, entropy, gradient cosine) are filled in by later work; the shell must load
// offline (no CDN fonts, scripts or models).

const methods = [
  {
    name: 'GRPO',
    text: 'Group-relative policy optimisation: sample a group of trajectories per task, score them by the environment’s sparse reward, and push up the actions of the better ones.',
  },
  {
    name: 'RetireOPD',
    text: 'On-policy distillation from a teacher that sees a privileged skill. A gate watches the gap K̄ₘ and the student’s competence, and retires the teacher once the gap stops shrinking (ρ ≤ δ) and the student is competent (η ≥ γ).',
  },
  {
    name: 'ActObs',
    text: 'Supervised fine-tuning that also predicts the environment’s observations (weight λ), keeping the policy a better world model and its argument tokens more exploratory.',
  },
];

export function App() {
  return (
    <main className="shell">
      <header>
        <h1>RetireLab</h1>
        <p className="tagline">
          Train small agent policies in this tab and watch three post-training methods for LLM agents work.
        </p>
      </header>
      <section className="methods" aria-label="methods">
        {methods.map((m) => (
          <article key={m.name}>
            <h2>{m.name}</h2>
            <p>{m.text}</p>
          </article>
        ))}
      </section>
      <section aria-label="status" className="status">
        <p>
          Runs entirely offline: training happens on WebGPU, WebGL, WebAssembly or the CPU inside a Web Worker. The
          headless CLI (<code>npm run experiment</code>) and the gate replay over real training logs (
          <code>npm run replay</code>) use the same engine.
        </p>
      </section>
    </main>
  );
}
