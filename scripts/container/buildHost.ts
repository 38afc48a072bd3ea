import { existsSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { onPath, progress, run } from './commands.ts';

const TOOLS = ['podman', 'runc', 'debootstrap'];

/** Installs podman, runc and debootstrap from Debian's packages when one is missing. */
export async function ensureTools(logFile: string): Promise<void> {
  const missing = TOOLS.filter((tool) => !onPath(tool));
  if (missing.length === 0) return;
  if (!onPath('apt-get')) throw new Error(`${missing.join(', ')} missing and no apt-get to install them`);
  progress(`installing ${missing.join(', ')} from Debian's packages`);
  const env = { DEBIAN_FRONTEND: 'noninteractive' };
  await run('apt-get', ['update'], { logFile, env });
  await run('apt-get', ['install', '-y', '--no-install-recommends', ...TOOLS], { logFile, env });
}

/**
 * The build's `npm ci` reaches the registry the way this machine's npm does: same registry, same proxies,
 * and the CA bundle npm trusts (a TLS-inspecting proxy's) mounted read-only for that step only.
 */
export async function buildArgsForNpm(logFile: string): Promise<string[]> {
  const npmConfig = async (key: string) => {
    const value = await run('npm', ['config', 'get', key], { logFile });
    return value === 'null' || value === 'undefined' ? '' : value;
  };
  const args = ['--build-arg', `NPM_CONFIG_REGISTRY=${await npmConfig('registry')}`];
  const proxies: [string, string][] = [
    ['HTTPS_PROXY', process.env.HTTPS_PROXY ?? process.env.https_proxy ?? (await npmConfig('https-proxy'))],
    ['HTTP_PROXY', process.env.HTTP_PROXY ?? process.env.http_proxy ?? (await npmConfig('proxy'))],
    ['NO_PROXY', process.env.NO_PROXY ?? process.env.no_proxy ?? (await npmConfig('noproxy'))],
  ];
  for (const [name, value] of proxies) if (value) args.push('--build-arg', `${name}=${value}`);
  const cafile = (await npmConfig('cafile')) || '/etc/ssl/certs/ca-certificates.crt';
  if (existsSync(cafile)) {
    const dir = path.dirname(cafile);
    args.push('--volume', `${dir}:${dir}:ro`, '--build-arg', `NODE_EXTRA_CA_CERTS=${cafile}`);
  }
  return args;
}

/** The mirror this machine's apt fetches bookworm from (deb822 or one-line sources), else Debian's own. */
export async function debianMirror(): Promise<string> {
  const deb822 = await readFile('/etc/apt/sources.list.d/debian.sources', 'utf8').catch(() => '');
  for (const stanza of deb822.split(/\n\s*\n/)) {
    const field = (name: string) =>
      new RegExp(`^${name}:\\s*(.+)$`, 'm').exec(stanza)?.[1]?.trim().split(/\s+/) ?? [];
    const uri = field('URIs')[0];
    if (uri && field('Suites').includes('bookworm')) return uri;
  }
  const oneLine = await readFile('/etc/apt/sources.list', 'utf8').catch(() => '');
  const match = /^deb\s+(?:\[[^\]]*\]\s+)?(\S+)\s+bookworm\s/m.exec(oneLine);
  return match?.[1] ?? 'http://deb.debian.org/debian';
}
