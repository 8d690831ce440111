"use client";

import {
  Bar,
  BarChart,
  CartesianGrid,
  Legend,
  Line,
  LineChart,
  ResponsiveContainer,
  Tooltip,
  XAxis,
  YAxis,
} from "recharts";
import { useI18n } from "~/i18n/client";
import { eventLabel } from "~/i18n/labels";
import type { DashboardStats } from "~/server/dashboard/stats";

const COLORS = ["#4f46e5", "#0ea5e9", "#10b981", "#f59e0b", "#ef4444", "#a855f7", "#64748b"];
const axis = { fontSize: 11, stroke: "#a1a1aa" };

/** Horizontal bars of counts (cards by kind, scope type, status). */
export function CountBars({
  data,
  label,
  valueLabel,
}: {
  data: { name: string; count: number }[];
  label: string;
  valueLabel: string;
}) {
  const { t } = useI18n();
  if (data.length === 0) return <p className="py-8 text-center text-sm text-zinc-500">{t("stats.noData")}</p>;
  return (
    <figure aria-label={label} className="h-64 w-full">
      <ResponsiveContainer width="100%" height="100%">
        <BarChart data={data} layout="vertical" margin={{ left: 8, right: 16 }}>
          <CartesianGrid horizontal={false} strokeOpacity={0.2} />
          <XAxis type="number" allowDecimals={false} tick={axis} />
          <YAxis type="category" dataKey="name" width={140} tick={axis} />
          <Tooltip />
          <Bar dataKey="count" name={valueLabel} fill={COLORS[0]} radius={[0, 4, 4, 0]} />
        </BarChart>
      </ResponsiveContainer>
    </figure>
  );
}

/** Writes per day, stacked by what happened. */
export function WritesChart({ data }: { data: DashboardStats["writesPerDay"] }) {
  const { t } = useI18n();
  const series = ["create", "update", "supersede", "expire", "delete", "rejected"] as const;
  return (
    <figure aria-label={t("stats.writesPerDay")} className="h-72 w-full">
      <ResponsiveContainer width="100%" height="100%">
        <BarChart data={data} margin={{ right: 16 }}>
          <CartesianGrid vertical={false} strokeOpacity={0.2} />
          <XAxis dataKey="day" tick={axis} tickFormatter={(d: string) => d.slice(5)} />
          <YAxis allowDecimals={false} tick={axis} />
          <Tooltip />
          <Legend wrapperStyle={{ fontSize: 12 }} />
          {series.map((s, i) => (
            <Bar key={s} dataKey={s} name={eventLabel(t, s)} stackId="writes" fill={COLORS[i % COLORS.length]} />
          ))}
        </BarChart>
      </ResponsiveContainer>
    </figure>
  );
}

/** Searches per day (bars) and that day's latency p50 / p95 (lines with a point per day that had searches: one day alone draws no line). */
export function SearchesChart({ data }: { data: DashboardStats["searchesPerDay"] }) {
  const { t } = useI18n();
  return (
    <div className="grid gap-6 lg:grid-cols-2">
      <figure aria-label={t("stats.searchesPerDay")} className="h-64 w-full">
        <ResponsiveContainer width="100%" height="100%">
          <BarChart data={data} margin={{ right: 16 }}>
            <CartesianGrid vertical={false} strokeOpacity={0.2} />
            <XAxis dataKey="day" tick={axis} tickFormatter={(d: string) => d.slice(5)} />
            <YAxis allowDecimals={false} tick={axis} />
            <Tooltip />
            <Bar dataKey="count" name={t("stats.searches")} fill={COLORS[1]} />
          </BarChart>
        </ResponsiveContainer>
      </figure>
      <figure aria-label={t("stats.latencyPerDay")} className="h-64 w-full">
        <ResponsiveContainer width="100%" height="100%">
          <LineChart data={data} margin={{ right: 16 }}>
            <CartesianGrid vertical={false} strokeOpacity={0.2} />
            <XAxis dataKey="day" tick={axis} tickFormatter={(d: string) => d.slice(5)} />
            <YAxis tick={axis} unit=" ms" width={64} />
            <Tooltip />
            <Legend wrapperStyle={{ fontSize: 12 }} />
            <Line
              type="monotone"
              dataKey="p50"
              name="p50"
              stroke={COLORS[2]}
              dot={{ r: 3, fill: COLORS[2] }}
              connectNulls
            />
            <Line
              type="monotone"
              dataKey="p95"
              name="p95"
              stroke={COLORS[4]}
              dot={{ r: 3, fill: COLORS[4] }}
              connectNulls
            />
          </LineChart>
        </ResponsiveContainer>
      </figure>
    </div>
  );
}
