/**
 * Progress of a long command on a stream: a bar redrawn in place on a terminal (at most every 100 ms), else one line
 * per tenth done, so a log shows it advance.
 */
export function progressWriter(out: NodeJS.WritableStream & { isTTY?: boolean }, what: string): (done: number, total: number) => void {
  const started = performance.now();
  let drawn = -Infinity;
  let tenth = -1;
  return (done, total) => {
    const share = total ? Math.min(1, done / total) : 1;
    const count = `${done.toLocaleString('en-US')}/${total.toLocaleString('en-US')} ${what}`;
    const now = performance.now();
    const rate = Math.round(done / Math.max(0.001, (now - started) / 1000)).toLocaleString('en-US');
    if (out.isTTY) {
      if (done < total && now - drawn < 100) return;
      drawn = now;
      const width = 30;
      out.write(
        `\r[${'#'.repeat(Math.round(share * width)).padEnd(width, '.')}] ${(share * 100).toFixed(1)}% ${count}  ${rate}/s   ${done >= total ? '\n' : ''}`,
      );
      return;
    }
    const reached = Math.floor(share * 10);
    if (reached === tenth) return;
    tenth = reached;
    out.write(`${reached * 10}% ${count}  ${rate}/s\n`);
  };
}
