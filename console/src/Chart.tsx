/** A Chart.js chart as a React component; the canvas carries a text summary for screen readers. */
import { useEffect, useRef } from 'react';
import { Chart as ChartJs, registerables, type ChartConfiguration } from 'chart.js';

ChartJs.register(...registerables);

export const PALETTE = ['#2563eb', '#d97706', '#059669', '#dc2626', '#7c3aed', '#0891b2', '#be185d', '#4d7c0f', '#475569'];

export function Chart({ config, label, testId }: { config: ChartConfiguration; label: string; testId?: string }) {
  const canvas = useRef<HTMLCanvasElement>(null);
  useEffect(() => {
    if (!canvas.current) return undefined;
    const chart = new ChartJs(canvas.current, {
      ...config,
      options: { responsive: true, maintainAspectRatio: false, animation: false, ...config.options },
    });
    return () => chart.destroy();
  }, [config]);
  return (
    <div className="chart" data-testid={testId}>
      <canvas ref={canvas} role="img" aria-label={label} />
    </div>
  );
}
