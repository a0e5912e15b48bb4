/**
 * Small charts drawn on the server as SVG: one bar per sample, requests in the ink colour
 * and errors over them in the alarm colour. Presentation attributes, not `style`, so the
 * Content-Security-Policy needs no inline style.
 */
import type { RateSeries } from '../ports/rate-samples.js';
import { html, type SafeHtml } from './html.js';

const WIDTH = 300;
const HEIGHT = 60;

export function rateChart(series: RateSeries, stepSeconds: number, capacity: number): SafeHtml {
  const peak = Math.max(1, ...series.requests);
  const barWidth = WIDTH / capacity;
  const offset = capacity - series.requests.length;
  const bar = (value: number, index: number, kind: string) => {
    const height = (value / peak) * HEIGHT;
    return html`<rect
      class="${kind}"
      x="${((offset + index) * barWidth).toFixed(2)}"
      y="${(HEIGHT - height).toFixed(2)}"
      width="${Math.max(1, barWidth - 1).toFixed(2)}"
      height="${height.toFixed(2)}"
    ></rect>`;
  };
  const total = series.requests.reduce((sum, value) => sum + value, 0);
  const errors = series.errors.reduce((sum, value) => sum + value, 0);
  const seconds = series.requests.length * stepSeconds;
  const span = seconds < 120 ? `${seconds} seconds` : `${Math.round(seconds / 60)} minutes`;
  const summary = `${series.label}: ${total} in the last ${span}, ${errors} failed`;
  return html`<figure class="chart">
    <svg viewBox="0 0 ${WIDTH} ${HEIGHT}" width="${WIDTH}" height="${HEIGHT}" role="img" aria-label="${summary}">
      <rect class="frame" x="0" y="0" width="${WIDTH}" height="${HEIGHT}"></rect>
      ${series.requests.map((value, index) => bar(value, index, 'requests'))}
      ${series.errors.map((value, index) => bar(value, index, 'errors'))}
    </svg>
    <figcaption>${summary} (peak ${peak} per ${stepSeconds} s)</figcaption>
  </figure>`;
}
