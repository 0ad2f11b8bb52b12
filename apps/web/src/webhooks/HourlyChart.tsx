import type { WebhookStats } from '../api/types';
import { formatHour, formatTime } from '../components/format-time';

const HEIGHT = 120;
const BAR_GAP = 2;
/** Room under the bars for the axis line. */
const AXIS = 1;
/** About the width of an hour label ("23:00") in the chart's units. */
const LABEL_WIDTH = 32;

/**
 * Attempts per hour by outcome, as stacked SVG bars (succeeded below, failed above), oldest on the
 * left. Each bar has a tooltip with its figures; the whole chart is described in words for
 * screen readers.
 */
export function HourlyChart({ buckets }: { buckets: WebhookStats['buckets'] }) {
  if (buckets.length === 0) return null;
  const width = Math.max(240, buckets.length * 14);
  const slot = width / buckets.length;
  const peak = Math.max(0, ...buckets.map((b) => b.succeeded + b.failed));
  const scale = (n: number) => (n / Math.max(1, peak)) * (HEIGHT - AXIS - 4);
  const totals = buckets.reduce((sum, b) => ({ succeeded: sum.succeeded + b.succeeded, failed: sum.failed + b.failed }), { succeeded: 0, failed: 0 });
  const label = `Attempts per hour from ${formatTime(buckets[0].start)}: ${totals.succeeded} succeeded, ${totals.failed} failed; busiest hour ${peak} attempts.`;
  const labelEvery = Math.max(1, Math.ceil(buckets.length / 8));
  return (
    <figure class="chart">
      <svg viewBox={`0 0 ${width} ${HEIGHT}`} role="img" aria-label={label} preserveAspectRatio="none" class="hourly-chart">
        {buckets.map((bucket, i) => {
          const x = i * slot + BAR_GAP / 2;
          const ok = scale(bucket.succeeded);
          const ko = scale(bucket.failed);
          const base = HEIGHT - AXIS;
          return (
            <g key={bucket.start} class="bucket">
              <title>{`${formatTime(bucket.start)}: ${bucket.succeeded} succeeded, ${bucket.failed} failed`}</title>
              <rect x={x} y={0} width={slot - BAR_GAP} height={base} class="bucket-hit" />
              {ok > 0 ? <rect x={x} y={base - ok} width={slot - BAR_GAP} height={ok} class="bar-ok" /> : null}
              {ko > 0 ? <rect x={x} y={base - ok - ko} width={slot - BAR_GAP} height={ko} class="bar-ko" /> : null}
            </g>
          );
        })}
        <line x1={0} x2={width} y1={HEIGHT - AXIS} y2={HEIGHT - AXIS} class="axis" />
      </svg>
      {/* Hour labels in HTML, not in the SVG: the SVG stretches to the card's width (preserveAspectRatio
          none), which would stretch its text with it. */}
      <div class="axis-labels" aria-hidden="true">
        {buckets.map((bucket, i) => {
          if (i % labelEvery !== 0) return null;
          const x = i * slot + BAR_GAP / 2;
          // A label that would run past the chart's right edge is left out (right-aligned, it met its neighbour).
          if (x > width - LABEL_WIDTH) return null;
          return (
            <span key={bucket.start} class="axis-label" style={{ left: `${percent(x, width)}%` }}>
              {formatHour(bucket.start)}
            </span>
          );
        })}
      </div>
      <figcaption class="legend">
        <span class="swatch swatch-ok" aria-hidden="true" /> succeeded ({totals.succeeded}) <span class="swatch swatch-ko" aria-hidden="true" /> failed ({totals.failed}) · peak {peak} per hour
      </figcaption>
    </figure>
  );
}

const percent = (part: number, whole: number) => ((part / whole) * 100).toFixed(3);
