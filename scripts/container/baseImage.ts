import { spawn, spawnSync } from 'node:child_process';
import { cp, mkdir, readFile, realpath, rm, symlink } from 'node:fs/promises';
import path from 'node:path';
import { type Podman, progress, run, seconds } from './commands.ts';

export function imageExists(tool: Podman, tag: string): boolean {
  return (
    spawnSync(tool.command, [...tool.globalArgs, 'image', 'exists', tag], { stdio: 'ignore' }).status === 0
  );
}

export function baseImageTag(): string {
  return `localhost/tally-check-base:bookworm-node${process.versions.node}`;
}

/**
 * A Debian bookworm image with this Node at /usr/local/bin, laid out like the official Node image, built
 * without any image registry: debootstrap from Debian's mirror, then `podman import`.
 */
export async function buildBaseImage(tool: Podman, workDir: string, mirror: string): Promise<string> {
  const tag = baseImageTag();
  const rootfs = path.join(workDir, 'rootfs');
  const startedAt = Date.now();
  progress(`debootstrap --variant=minbase bookworm from ${mirror} (about a minute)`);
  try {
    await run('debootstrap', ['--variant=minbase', 'bookworm', rootfs, mirror], { logFile: tool.logFile });
    progress(`debootstrap done in ${seconds(startedAt)}; adding Node ${process.version} and npm`);
    await addNode(rootfs);
    // Package lists and caches only make the image larger; the official slim image drops them too.
    for (const dir of [
      'var/lib/apt/lists',
      'var/cache/apt',
      'var/cache/debconf/templates.dat-old',
      'var/log',
    ]) {
      await rm(path.join(rootfs, dir), { recursive: true, force: true });
    }
    const tar = spawn('tar', ['-C', rootfs, '--numeric-owner', '-c', '.'], {
      stdio: ['ignore', 'pipe', 'inherit'],
    });
    await run(
      tool.command,
      [
        ...tool.globalArgs,
        'import',
        '--change',
        'ENV PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin',
        '--change',
        'CMD ["node"]',
        '-',
        tag,
      ],
      { logFile: tool.logFile, stdin: tar.stdout },
    );
    progress(`base image ${tag} built in ${seconds(startedAt)}`);
    return tag;
  } finally {
    await removeRootfs(rootfs);
  }
}

/** The Node binary running this check (the `node` devDependency) and the npm running it. */
async function addNode(rootfs: string): Promise<void> {
  const nodeBinary = await realpath(process.execPath);
  const npmRoot = await npmPackageRoot();
  const bin = path.join(rootfs, 'usr/local/bin');
  const lib = path.join(rootfs, 'usr/local/lib/node_modules/npm');
  await mkdir(bin, { recursive: true });
  await cp(nodeBinary, path.join(bin, 'node'));
  await cp(npmRoot, lib, { recursive: true, dereference: true });
  await symlink('../lib/node_modules/npm/bin/npm-cli.js', path.join(bin, 'npm'));
  await symlink('../lib/node_modules/npm/bin/npx-cli.js', path.join(bin, 'npx'));
}

async function npmPackageRoot(): Promise<string> {
  // `npm run` names its own entry point; a direct `node scripts/checkContainer.ts` asks npm where it lives.
  const execPath = process.env.npm_execpath;
  const root = execPath
    ? path.resolve(path.dirname(execPath), '..')
    : path.join(await run('npm', ['root', '-g'], { logFile: '/dev/null' }), 'npm');
  const manifest = JSON.parse(await readFile(path.join(root, 'package.json'), 'utf8')) as { name?: string };
  if (manifest.name !== 'npm') throw new Error(`no npm package at ${root}`);
  return root;
}

/** debootstrap mounts /proc and /sys inside the tree; a failed run can leave them mounted. */
async function removeRootfs(rootfs: string): Promise<void> {
  const mounts = (await readFile('/proc/mounts', 'utf8'))
    .split('\n')
    .map((line) => line.split(' ')[1] ?? '')
    .filter((mountPoint) => mountPoint.startsWith(`${rootfs}/`))
    .sort((a, b) => b.length - a.length);
  for (const mountPoint of mounts) await run('umount', ['-l', mountPoint], { logFile: '/dev/null' });
  await run('rm', ['-rf', '--one-file-system', rootfs], { logFile: '/dev/null' });
}
