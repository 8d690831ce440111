/** A one-line progress bar on stderr (a plain line per update when not a terminal, e.g. in CI logs). */
export function createProgress(label: string, total?: number) {
  const tty = process.stderr.isTTY;
  let last = 0;
  let shown = -1;
  const render = (done: number) => {
    if (total) {
      const width = 28;
      const filled = Math.round((Math.min(done, total) / total) * width);
      return `${label} [${"#".repeat(filled)}${"-".repeat(width - filled)}] ${done}/${total}`;
    }
    return `${label}: ${done}`;
  };
  return {
    update(done: number) {
      const now = Date.now();
      if (!tty && now - last < 1000 && done !== total) return;
      last = now;
      shown = done;
      process.stderr.write(tty ? `\r${render(done)}` : `${render(done)}\n`);
    },
    done(done: number) {
      if (!tty && shown === done) return;
      process.stderr.write(tty ? `\r${render(done)}\n` : `${render(done)}\n`);
    },
  };
}
