import { AxisBottom, AxisLeft } from '@visx/axis';
import { Group } from '@visx/group';
import { scaleBand, scaleLinear } from '@visx/scale';
import { Bar } from '@visx/shape';

// The Reports charts, drawn with visx (SVG primitives and d3 scales as React components): every bar
// is a link to the orders it counts, which a canvas chart could not offer, and axes say the scale.

const AXIS = { fontSize: 9, fill: '#4b5563' } as const;

export interface BarGroup {
  label: string;
  value: number | null;
  href: string;
}

/** A name under its bar: whole up to 10 characters, else cut with an ellipsis (the bar's title has it whole). */
const shortName = (l: string) => (l.length > 10 ? `${l.slice(0, 9)}…` : l);

/**
 * One figure per group as vertical bars; `scale`: the top of the axis when the figure has one (a
 * rate: 1). `byName`: the groups are couriers, districts or merchants, not days (MM-DD under a bar).
 */
export function Bars({
  title,
  groups,
  scale,
  byName = false,
  format = (v) => String(v),
}: {
  title: string;
  groups: BarGroup[];
  scale?: number;
  byName?: boolean;
  format?: (v: number) => string;
}) {
  const margin = { top: 8, right: 8, bottom: 22, left: 42 };
  const height = 120;
  const width = Math.max(120, groups.length * (byName ? 64 : 28));
  const x = scaleBand({ domain: groups.map((g) => g.label), range: [0, width], padding: 0.25 });
  const top = scale ?? Math.max(1, ...groups.map((g) => g.value ?? 0));
  const y = scaleLinear({ domain: [0, top], range: [height, 0], nice: scale === undefined });
  // One label in every few when the groups are many (92 days), so they never overlap.
  const every = byName ? 1 : Math.ceil(groups.length / Math.max(1, Math.floor(width / 40)));
  return (
    <figure className="chart">
      <figcaption>{title}</figcaption>
      {/* Not role="img": its bars are links, which an image's children cannot be (axe nested-interactive). */}
      <svg width={width + margin.left + margin.right} height={height + margin.top + margin.bottom}>
        <title>{title}</title>
        <Group left={margin.left} top={margin.top}>
          {groups.map((g) => {
            const v = g.value ?? 0;
            return (
              <a key={g.label} href={g.href}>
                <Bar x={x(g.label) ?? 0} y={y(v)} width={x.bandwidth()} height={height - y(v)} fill="#2563eb">
                  <title>{`${g.label}: ${g.value === null ? '—' : format(g.value)}`}</title>
                </Bar>
              </a>
            );
          })}
          <AxisLeft
            scale={y}
            numTicks={4}
            tickFormat={(v) => format(Number(v))}
            tickLabelProps={() => ({ ...AXIS, textAnchor: 'end', dx: -2, dy: 3 })}
          />
          <AxisBottom
            top={height}
            scale={x}
            tickValues={groups.filter((_, i) => i % every === 0).map((g) => g.label)}
            tickFormat={(l) => (byName ? shortName(String(l)) : String(l).slice(-5))}
            tickLabelProps={() => ({ ...AXIS, textAnchor: 'middle' })}
          />
        </Group>
      </svg>
    </figure>
  );
}

const STARS = ['5', '4', '3', '2', '1'] as const;

/** How many customers gave each number of stars: a horizontal bar per star, each opening those orders. */
export function Distribution({
  distribution,
  rated,
}: {
  distribution: Record<(typeof STARS)[number], number>;
  rated: string;
}) {
  const margin = { top: 4, right: 28, bottom: 4, left: 28 };
  const width = 160;
  const height = STARS.length * 18;
  const y = scaleBand({ domain: [...STARS], range: [0, height], padding: 0.2 });
  const x = scaleLinear({ domain: [0, Math.max(1, ...STARS.map((k) => distribution[k]))], range: [0, width] });
  return (
    <figure className="chart">
      <figcaption>Ratings</figcaption>
      <svg width={width + margin.left + margin.right} height={height + margin.top + margin.bottom}>
        <title>Ratings</title>
        <Group left={margin.left} top={margin.top}>
          {STARS.map((k) => {
            const n = distribution[k];
            const top = y(k) ?? 0;
            return (
              <a key={k} href={`${rated}&rating=${k}`}>
                <Bar x={0} y={top} width={x(n)} height={y.bandwidth()} fill="#d97706">
                  <title>{`${k} stars: ${n}`}</title>
                </Bar>
                <text x={x(n) + 4} y={top + y.bandwidth() - 3} {...AXIS}>
                  {n}
                </text>
              </a>
            );
          })}
          <AxisLeft
            scale={y}
            tickFormat={(k) => `${k} ★`}
            hideTicks
            tickLabelProps={() => ({ ...AXIS, textAnchor: 'end', dx: -2, dy: 3 })}
          />
        </Group>
      </svg>
    </figure>
  );
}
