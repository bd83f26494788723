// The verl / TRL export of each distillation form (src/app/runs/verlSnippet.ts): the default form adds nothing to the
// RetireOPD overrides, every other form names its closest verl or TRL setting or says it has none.
import { describe, expect, it } from 'vitest';
import { applyOverrides } from '../../src/core/experiment/config';
import { DEFAULT_CONFIG } from '../../src/core/experiment/configSchema';
import { verlSnippet } from '../../src/app/runs/verlSnippet';

const form = (f: string, ...more: string[]) =>
  verlSnippet(applyOverrides(DEFAULT_CONFIG, [`student.distill.form=${f}`, ...more]), 0.8);

describe('the verl snippet of a distillation form', () => {
  it('leaves the reverse-kl (default) snippet exactly as the RetireOPD overrides were', () => {
    expect(form('reverse-kl')).toBe(verlSnippet(DEFAULT_CONFIG, 0.8));
    expect(form('reverse-kl')).not.toContain('distill form');
  });

  it("maps gkd-jsd to TRL's GKDConfig with the run's β and λ", () => {
    expect(form('gkd-jsd', 'student.distill.beta=0.3')).toContain('GKDConfig(beta=0.3, lmbda=1)');
  });

  it("maps GKD's λ < 1 to lmbda with seq_kd (the teacher samples the rest of the batches)", () => {
    const s = form('gkd-jsd', 'student.distill.studentFraction=0.25');
    expect(s).toContain('GKDConfig(beta=0.5, lmbda=0.25, seq_kd=True)');
    expect(s).toContain("the lab's teacher samples with its skill in context");
    expect(form('gkd-jsd')).not.toContain('seq_kd');
  });

  it('maps kl-reward to verl’s KL-in-reward path with the teacher as the reference policy', () => {
    const s = form('kl-reward');
    expect(s).toContain('algorithm.use_kl_in_reward=True');
    expect(s).toContain('actor_rollout_ref.ref.model.path=<teacher>');
  });

  it('names k for topk-forward-kl and says self-distill has no counterpart', () => {
    expect(form('topk-forward-kl', 'student.distill.topK=8')).toContain('k = 8');
    expect(form('self-distill')).toContain('no counterpart');
  });
});
