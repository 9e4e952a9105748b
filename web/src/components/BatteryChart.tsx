import { useEffect, useRef, useState } from 'preact/hooks';
import uPlot from 'uplot';
import { clockText } from '../time.js';

export interface BatteryPoint {
  /** Epoch ms. */
  at: number;
  /** 0–1. */
  level: number;
}

const DARK = '(prefers-color-scheme: dark)';

/** The colour scheme in use, followed live: the chart's colours are drawn into its canvas. */
function useColourScheme(): 'dark' | 'light' {
  const [scheme, setScheme] = useState<'dark' | 'light'>(() => (matchMedia(DARK).matches ? 'dark' : 'light'));
  useEffect(() => {
    const query = matchMedia(DARK);
    const changed = (): void => {
      setScheme(query.matches ? 'dark' : 'light');
    };
    query.addEventListener('change', changed);
    return () => {
      query.removeEventListener('change', changed);
    };
  }, []);
  return scheme;
}

const cssVar = (name: string, fallback: string): string => getComputedStyle(document.documentElement).getPropertyValue(name).trim() || fallback;

/** An x-axis label: "Thu 26" across days, "17:05" within one, on the clock of `zone`. */
function axisLabel(seconds: number, zone: string, spanSeconds: number): string {
  const text = clockText(seconds * 1000, zone); // "Thu 26 Nov 2026, 17:05"
  const [date = '', time = ''] = text.split(', ');
  return spanSeconds >= 2 * 86_400 ? date.split(' ').slice(0, 2).join(' ') : time;
}

/** The battery level over time (uPlot on a canvas), with the readings as a table for screen readers. */
export function BatteryChart({ lockName, zone, points, current }: { lockName: string; zone: string; points: BatteryPoint[]; current: number | null }) {
  const host = useRef<HTMLDivElement>(null);
  const scheme = useColourScheme();

  // Drawn anew when the readings, the zone or the colour scheme change (its colours are painted
  // into the canvas; battery reports come a few a day); it follows its box's width.
  useEffect(() => {
    const element = host.current;
    if (!element || points.length === 0) return undefined;
    const data: uPlot.AlignedData = [points.map((point) => point.at / 1000), points.map((point) => Math.round(point.level * 100))];
    const text = cssVar('--text', '#1d1d1f');
    const grid = cssVar('--line', '#d0d0d5');
    const axis = { stroke: text, grid: { stroke: grid, width: 1 }, ticks: { stroke: grid, width: 1 } };
    const width = (): number => Math.max(240, element.clientWidth);
    const plot = new uPlot(
      {
        width: width(),
        height: 200,
        tzDate: (seconds) => uPlot.tzDate(new Date(seconds * 1000), zone),
        // At least an hour wide: readings seconds apart must not give sub-second axis labels.
        scales: { x: { time: true, range: (_chart, min, max) => (max - min < 3600 ? [max - 3600, max] : [min, max]) }, y: { range: [0, 100] } },
        legend: { show: false },
        cursor: { show: false },
        series: [{}, { label: 'Battery %', stroke: cssVar('--accent', '#0a58ca'), width: 2, points: { show: true, size: 6 } }],
        axes: [
          // Days over a span of days ("Thu 26"), hours and minutes within one (24-hour), on the lock's clock.
          { ...axis, space: 70, values: (chart, ticks) => ticks.map((tick) => axisLabel(tick, zone, (chart.scales.x?.max ?? 0) - (chart.scales.x?.min ?? 0))) },
          { ...axis, size: 60, values: (_chart, ticks) => ticks.map((tick) => `${tick} %`) },
        ],
      },
      data,
      element,
    );
    const resized = new ResizeObserver(() => {
      if (plot.width !== width()) plot.setSize({ width: width(), height: 200 });
    });
    resized.observe(element);
    return () => {
      resized.disconnect();
      plot.destroy();
    };
  }, [points, zone, scheme]);

  return (
    <figure class="chart card" aria-labelledby="battery-caption">
      <figcaption id="battery-caption">Battery of {lockName}</figcaption>
      {points.length === 0 ? (
        <p class="muted">
          {current === null
            ? 'The lock has not reported its battery yet.'
            : `No battery readings recorded yet; the lock reports ${Math.round(current * 100)} % now.`}
        </p>
      ) : <div ref={host} class="chart-canvas" role="img" aria-label={`Battery of ${lockName} over time, ${points.length} readings`} />}
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
                  <td>{clockText(point.at, zone)}</td>
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
