/**
 * The job page's chart: pages and items over time, from the stats file's `series` ([seconds, pages, items] points),
 * drawn as inline SVG in the page itself, so it needs no script and nothing from anywhere else.
 */
import { escapeHtml } from "./html.ts";

/** One point: seconds since the crawl started, pages, items. */
export type SeriesPoint = [number, number, number];

/** The series of a stats record, its malformed points left out. */
export function seriesOf(stats: Record<string, unknown> | null): SeriesPoint[] {
  const series = stats?.series;
  if (!Array.isArray(series)) return [];
  return series.filter((point): point is SeriesPoint =>
    Array.isArray(point) && point.length === 3 && point.every((value) => typeof value === "number" && isFinite(value))
  );
}

/** Pages per second between the last two points, or undefined with fewer than two. */
export function pagesPerSecondNow(series: readonly SeriesPoint[]): number | undefined {
  if (series.length < 2) return undefined;
  const [[t1, p1], [t2, p2]] = series.slice(-2);
  return t2 > t1 ? (p2 - p1) / (t2 - t1) : undefined;
}

const WIDTH = 720;
const HEIGHT = 220;
const PAD = { left: 56, right: 16, top: 14, bottom: 30 };

function duration(seconds: number): string {
  if (seconds >= 3600) return `${(seconds / 3600).toFixed(1)} h`;
  if (seconds >= 60) return `${(seconds / 60).toFixed(1)} min`;
  return `${Math.round(seconds)} s`;
}

/** The chart as an `<svg>` element; a sentence instead when there are fewer than two points. */
export function renderChart(series: readonly SeriesPoint[]): string {
  if (series.length < 2) return `<p class="dim">No chart yet: the crawl writes a point every few seconds.</p>`;
  const lastTime = Math.max(series.at(-1)![0], 1);
  const top = Math.max(1, ...series.map(([, pages, items]) => Math.max(pages, items)));
  const plotW = WIDTH - PAD.left - PAD.right;
  const plotH = HEIGHT - PAD.top - PAD.bottom;
  const x = (t: number) => (PAD.left + (t / lastTime) * plotW).toFixed(1);
  const y = (v: number) => (PAD.top + plotH - (v / top) * plotH).toFixed(1);
  const line = (index: 1 | 2) => series.map((point) => `${x(point[0])},${y(point[index])}`).join(" ");
  const bottom = PAD.top + plotH;
  return `<svg class="chart" viewBox="0 0 ${WIDTH} ${HEIGHT}" width="${WIDTH}" height="${HEIGHT}" role="img" ` +
    `aria-label="pages and items over time">
<rect x="${PAD.left}" y="${PAD.top}" width="${plotW}" height="${plotH}" class="frame"/>
<text x="${PAD.left - 6}" y="${PAD.top + 4}" class="axis" text-anchor="end">${
      escapeHtml(top.toLocaleString("en"))
    }</text>
<text x="${PAD.left - 6}" y="${bottom}" class="axis" text-anchor="end">0</text>
<text x="${PAD.left}" y="${bottom + 18}" class="axis">0 s</text>
<text x="${WIDTH - PAD.right}" y="${bottom + 18}" class="axis" text-anchor="end">${
      escapeHtml(duration(lastTime))
    }</text>
<polyline class="pages" points="${line(1)}"/>
<polyline class="items" points="${line(2)}"/>
<text x="${PAD.left + 8}" y="${PAD.top + 16}" class="legend pages-legend">pages</text>
<text x="${PAD.left + 60}" y="${PAD.top + 16}" class="legend items-legend">items</text>
</svg>`;
}
