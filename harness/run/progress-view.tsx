import { Box, Text, render } from "ink";
import { formatSpend } from "./budget.ts";
import { formatDuration, isInteractive, loopText, startPlainProgress, type Progress, type ProgressReporter, type ProgressSnapshot } from "./progress.ts";

function Bar({ done, total }: { done: number; total: number }) {
  const width = 24;
  const filled = total === 0 ? width : Math.round((done / total) * width);
  return (
    <Text color="green">
      {"█".repeat(filled)}
      <Text dimColor>{"░".repeat(width - filled)}</Text>
    </Text>
  );
}

function ProgressView({ p }: { p: ProgressSnapshot }) {
  return (
    <Box flexDirection="column">
      {p.suites.map((s) => (
        <Box key={s.suite} gap={1}>
          <Box width={9}>
            <Text bold>{s.suite}</Text>
          </Box>
          <Bar done={s.done} total={s.total} />
          <Text>
            {s.done}/{s.total}
          </Text>
          {s.errors > 0 ? <Text color="red">{s.errors} errors</Text> : null}
        </Box>
      ))}
      <Text dimColor>
        {p.rate.toFixed(1)} trials/s · eta {formatDuration(p.etaMs)} · {p.spend.calls} calls · spent {formatSpend(p.spend)} · {formatDuration(p.elapsedMs)}{" "}
        elapsed{loopText(p.loop)}
      </Text>
      {p.slowest.length > 0 ? <Text dimColor>slowest in flight: {p.slowest.map((s) => `${s.key} ${formatDuration(s.ageMs)}`).join(", ")}</Text> : null}
    </Box>
  );
}

export type { ProgressReporter } from "./progress.ts";

/**
 * The live view: ink on an interactive terminal, otherwise a plain line every `everyMs` (CI,
 * pipes, NO_COLOR). Both read the same snapshot. The sweep imports this module only for a
 * terminal, so a non-interactive run never loads ink (and its layout engine's memory).
 */
export function startProgress(progress: Progress, now: () => number, out: NodeJS.WriteStream, env: NodeJS.ProcessEnv, everyMs = 2000): ProgressReporter {
  if (isInteractive(out, env)) {
    const app = render(<ProgressView p={progress.snapshot(now())} />, { stdout: out, patchConsole: false, exitOnCtrlC: false });
    const timer = setInterval(() => app.rerender(<ProgressView p={progress.snapshot(now())} />), 150);
    return {
      stop() {
        clearInterval(timer);
        app.rerender(<ProgressView p={progress.snapshot(now())} />);
        app.unmount();
      },
    };
  }
  return startPlainProgress(progress, now, out, everyMs);
}
