/** A one-line progress bar on a terminal; silent when stderr is not a TTY (CI logs stay clean). */
export function createProgress(total: number, stream: NodeJS.WriteStream = process.stderr) {
  let last = 0;
  return {
    update(done: number, detail: string) {
      if (!stream.isTTY) return;
      const now = Date.now();
      if (now - last < 100 && done < total) return;
      last = now;
      const width = 30;
      const filled = total === 0 ? width : Math.round((done / total) * width);
      stream.write(`\r[${'#'.repeat(filled)}${'.'.repeat(width - filled)}] ${done}/${total} ${detail}`);
    },
    finish() {
      if (stream.isTTY) stream.write('\n');
    },
  };
}
