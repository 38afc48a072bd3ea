// Top self-time entries of a V8 CPU profile (`node --cpu-prof`), grouped by function and file, so a
// benchmark's profile can be read without DevTools.
//   node bench/profileTop.ts FILE.cpuprofile [N]
import { readFile } from 'node:fs/promises';

type ProfileNode = {
  id: number;
  callFrame: { functionName: string; url: string; lineNumber: number };
};
type Profile = { nodes: ProfileNode[]; samples: number[]; timeDeltas: number[] };

const [file, count] = process.argv.slice(2);
if (!file) throw new Error('usage: node bench/profileTop.ts FILE.cpuprofile [N]');
const profile = JSON.parse(await readFile(file, 'utf8')) as Profile;

const nameOf = new Map<number, string>();
for (const node of profile.nodes) {
  const { functionName, url, lineNumber } = node.callFrame;
  // Keep the package (or our own path) and the line: enough to tell which layer the time is in.
  const where = url.replace(/^.*node_modules\//, '').replace(/^file:\/\/.*?\/(src|bench)\//, '$1/');
  nameOf.set(node.id, `${functionName || '(anonymous)'} ${where ? `${where}:${lineNumber + 1}` : ''}`.trim());
}

// Each sample is charged the time delta that follows it, as DevTools does.
const selfMicros = new Map<string, number>();
let total = 0;
profile.samples.forEach((id, index) => {
  const micros = profile.timeDeltas[index + 1] ?? 0;
  const name = nameOf.get(id) ?? '?';
  selfMicros.set(name, (selfMicros.get(name) ?? 0) + micros);
  total += micros;
});
const idle = selfMicros.get('(idle)') ?? 0;
const busy = total - idle;
process.stdout.write(
  `${file}: ${(total / 1e6).toFixed(1)} s sampled, ${(busy / 1e6).toFixed(1)} s busy (shares are of busy time)\n`,
);
const top = [...selfMicros].filter(([name]) => name !== '(idle)').sort((a, b) => b[1] - a[1]);
for (const [name, micros] of top.slice(0, Number(count ?? 15)))
  process.stdout.write(`${((100 * micros) / busy).toFixed(1).padStart(5)} %  ${name}\n`);
