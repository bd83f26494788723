// The sensitivity strip: the trigger step over a grid of δ × γ, every other gate option as the what-if has it, each
// cell one run of the real replay. The paper's robustness claim is that the trigger moves only a few steps over
// wide ranges of δ and γ; the strip shows whether this log agrees.
import { useMemo } from 'react';
import { sensitivityGrid } from '../../core/gateWhatIf';
import type { ReplayOptions } from '../../core/replay/gateReplay';
import type { LogSource } from '../../core/replay/logRecords';

export function SensitivityStrip({
  sources,
  options,
  current,
}: {
  sources: readonly LogSource[];
  options: ReplayOptions;
  /** the what-if's δ and γ, outlined when they fall on the grid */
  current: { delta: number; gamma: number };
}) {
  const grid = useMemo(() => {
    try {
      return sensitivityGrid(sources, options);
    } catch {
      return null;
    }
  }, [sources, options]);
  if (!grid) return null;
  const cells = grid.deltas.length * grid.gammas.length;
  return (
    <figure className="sensitivity" data-testid="sensitivity-strip">
      <figcaption>
        Sensitivity: trigger step over δ × γ (W, S_T and the rule as above). {grid.retiringCells} of {cells} settings
        retire
        {grid.spread === null ? '.' : `; their trigger steps span ${grid.spread} steps.`}
      </figcaption>
      <table aria-label="sensitivity of the trigger step">
        <thead>
          <tr>
            <th>δ \ γ</th>
            {grid.gammas.map((g) => (
              <th key={g}>{g}</th>
            ))}
          </tr>
        </thead>
        <tbody>
          {grid.deltas.map((d, i) => (
            <tr key={d}>
              <th>{d}</th>
              {grid.gammas.map((g, j) => {
                const t = grid.triggerSteps[i]?.[j] ?? null;
                const here = d === current.delta && g === current.gamma;
                return (
                  <td
                    key={g}
                    className={[t === null ? 'never' : '', here ? 'current' : ''].join(' ').trim() || undefined}
                    data-delta={d}
                    data-gamma={g}
                  >
                    {t === null ? '—' : t}
                  </td>
                );
              })}
            </tr>
          ))}
        </tbody>
      </table>
    </figure>
  );
}
