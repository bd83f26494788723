// The landing view: the story already run (the recorded arms playing on one chart, demo/OverviewStory.tsx), what
// RetireLab is, the three methods it teaches, and where each feature lives.
import { OverviewStory } from './demo/OverviewStory';

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

export function Overview() {
  return (
    <>
      <OverviewStory />
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
          <a href="#train">Train</a> runs the whole pipeline — demonstrations, SFT, the skill-conditioned teacher, the
          student under the gate — in a Web Worker on WebGPU, WebGL, WebAssembly or the CPU, and draws K̄ₘ, ρ, η,
          success, entropy and the gradient cosine live. <a href="#replay">Gate replay</a> runs the retirement gate over
          the log of your own verl/TRL run. Everything works offline; the headless CLI (<code>npm run experiment</code>,{' '}
          <code>npm run replay</code>) uses the same code.
        </p>
      </section>
    </>
  );
}
