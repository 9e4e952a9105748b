import { useEffect, useRef } from 'preact/hooks';
import uPlot from 'uplot';
import { onClock } from '../time.js';

export interface BatteryPoint {
  /** Epoch ms. */
  at: number;
  /** 0–1. */
  level: number;
}

const cssVar = (name: string, fallback: string): string => getComputedStyle(document.documentElement).getPropertyValue(name).trim() || fallback;

/** The battery level over time (uPlot on a canvas), with the readings as a table for screen readers. */
export function BatteryChart({ lockName, zone, points }: { lockName: string; zone: string; points: BatteryPoint[] }) {
  const host = useRef<HTMLDivElement>(null);
  const plot = useRef<uPlot>();

  useEffect(() => {
    const element = host.current;
    if (!element || points.length === 0) return undefined;
    const data: uPlot.AlignedData = [points.map((point) => point.at / 1000), points.map((point) => Math.round(point.level * 100))];
    if (plot.current) {
      plot.current.setData(data);
      return undefined;
    }
    const text = cssVar('--text', '#1d1d1f');
    const grid = cssVar('--line', '#d0d0d5');
    const axis = { stroke: text, grid: { stroke: grid, width: 1 }, ticks: { stroke: grid, width: 1 } };
    plot.current = new uPlot(
      {
        width: Math.max(240, element.clientWidth),
        height: 200,
        tzDate: (seconds) => uPlot.tzDate(new Date(seconds * 1000), zone),
        scales: { y: { range: [0, 100] } },
        legend: { show: false },
        cursor: { show: false },
        series: [{}, { label: 'Battery %', stroke: cssVar('--accent', '#0a58ca'), width: 2, points: { show: true, size: 6 } }],
        axes: [axis, { ...axis, values: (_chart, ticks) => ticks.map((tick) => `${tick} %`) }],
      },
      data,
      element,
    );
    const resize = (): void => {
      plot.current?.setSize({ width: Math.max(240, element.clientWidth), height: 200 });
    };
    addEventListener('resize', resize);
    return () => {
      removeEventListener('resize', resize);
    };
  }, [points, zone]);

  useEffect(
    () => () => {
      plot.current?.destroy();
      plot.current = undefined;
    },
    [],
  );

  return (
    <figure class="chart card" aria-labelledby="battery-caption">
      <figcaption id="battery-caption">Battery of {lockName}</figcaption>
      {points.length === 0 ? <p class="muted">No battery reports yet.</p> : <div ref={host} class="chart-canvas" role="img" aria-label={`Battery of ${lockName} over time, ${points.length} readings`} />}
      {points.length > 0 && (
        <details>
          <summary>Battery readings</summary>
          <table>
            <thead>
              <tr>
                <th scope="col">When ({zone})</th>
                <th scope="col">Level</th>
              </tr>
            </thead>
            <tbody>
              {points.map((point) => (
                <tr key={point.at}>
                  <td>{onClock(new Date(point.at).toISOString(), zone)}</td>
                  <td>{Math.round(point.level * 100)} %</td>
                </tr>
              ))}
            </tbody>
          </table>
        </details>
      )}
    </figure>
  );
}
