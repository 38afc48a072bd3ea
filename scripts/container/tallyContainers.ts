import { randomBytes } from 'node:crypto';
import { sign } from '../../src/ingest/signature.ts';
import { type Podman, podman, waitFor } from './commands.ts';

/**
 * What every `podman run`/`podman build` of the check needs on these machines: the host's network (no
 * bridge networking) and explicit limits (the default ones cannot be set here). Flags of the check, never
 * part of the image.
 */
export const MACHINE_FLAGS = [
  '--network',
  'host',
  '--ulimit',
  'nofile=4096:4096',
  '--ulimit',
  'nproc=4096:4096',
];

/** Where compose and the Kubernetes notes mount a tmpfs for uploaded statements (`UPLOAD_DIR`). */
export const UPLOAD_DIR = '/var/tally/uploads';

/**
 * As compose runs the roles: a read-only root file system with no writable /tmp added (Docker adds none;
 * podman's plain `--read-only` would, and hide a write anywhere else), and a tmpfs at UPLOAD_DIR only.
 */
export const ROLE_FLAGS = ['--read-only', '--read-only-tmpfs=false', '--tmpfs', `${UPLOAD_DIR}:rw,mode=1777`];

/** The settings every role gets, passed by name so the secrets never show in a process list. */
const TALLY_SETTINGS = ['DATABASE_URL', 'WEBHOOK_SECRETS', 'API_TOKEN', 'PORT', 'LOG_LEVEL', 'UPLOAD_DIR'];

export function settingsFlags(): string[] {
  return TALLY_SETTINGS.flatMap((name) => ['-e', name]);
}

/** Starts one role in the background and returns its container name. */
export async function startRole(tool: Podman, image: string, prefix: string, role: string): Promise<string> {
  const name = `${prefix}-${role}`;
  await podman(tool, [
    'run',
    '-d',
    '--name',
    name,
    ...MACHINE_FLAGS,
    ...ROLE_FLAGS,
    ...settingsFlags(),
    image,
    role,
  ]);
  return name;
}

/** Waits for a log line a role writes once it runs (`worker started`, `clock started`). */
export function waitForLog(tool: Podman, container: string, message: string, timeoutMs: number) {
  return waitFor(
    `${container} logging "${message}"`,
    async () => ((await podman(tool, ['logs', container])).includes(`"msg":"${message}"`) ? true : undefined),
    timeoutMs,
    500,
  );
}

export function waitForReady(baseUrl: string, timeoutMs: number) {
  return waitFor(
    'web answering /readyz',
    async () => ((await fetch(`${baseUrl}/readyz`)).ok ? true : undefined),
    timeoutMs,
    100,
  );
}

/** Posts one signed payment delivery as the provider would; returns its event id. */
export async function postSignedDelivery(baseUrl: string, secret: string): Promise<string> {
  const suffix = randomBytes(6).toString('hex');
  const eventId = `evt_container_check_${suffix}`;
  const body = JSON.stringify({
    id: eventId,
    account_id: 'acc_container_check',
    account_type: 'test',
    platform_account_id: 'acc_container_platform',
    idempotency_key: null,
    request_id: null,
    version: 'v1',
    event_name: 'payment.created',
    data: {
      id: `py_container_check_${suffix}`,
      amount: 1234,
      currency: 'usd',
      status: 'succeeded',
      fees: [],
    },
  });
  const timestamp = String(Math.floor(Date.now() / 1000));
  const response = await fetch(`${baseUrl}/webhooks`, {
    method: 'POST',
    headers: {
      'content-type': 'application/json',
      'JUSTIFI-TIMESTAMP': timestamp,
      'JUSTIFI-SIGNATURE': sign(secret, timestamp, body),
    },
    body,
  });
  if (response.status !== 200)
    throw new Error(`POST /webhooks answered ${response.status}: ${await response.text()}`);
  return eventId;
}

/**
 * Imports a two-line CSV statement through the API, as a user would: the upload is spooled to UPLOAD_DIR,
 * so this fails (500) if the read-only container has nowhere writable there. Returns its lines.
 */
export async function importStatementThroughApi(baseUrl: string, token: string): Promise<number> {
  const statement =
    'Date,Amount,Currency,Description,Reference\n' +
    `2026-03-02,12.30,USD,Container check ${randomBytes(6).toString('hex')},R1\n` +
    '2026-03-03,-1.00,USD,Fee,R2\n';
  const response = await fetch(`${baseUrl}/api/bank-statements?format=csv`, {
    method: 'POST',
    headers: { authorization: `Bearer ${token}`, 'content-type': 'text/csv' },
    body: statement,
  });
  const text = await response.text();
  if (response.status !== 201)
    throw new Error(`POST /api/bank-statements answered ${response.status}: ${text}`);
  return (JSON.parse(text) as { data: { lines: number } }).data.lines;
}

/** Waits until the read API shows the event processed by the worker. */
export function waitForProcessed(baseUrl: string, token: string, eventId: string, timeoutMs: number) {
  return waitFor(
    `event ${eventId} processed`,
    async () => {
      const response = await fetch(`${baseUrl}/api/events/${eventId}`, {
        headers: { authorization: `Bearer ${token}` },
      });
      const body = (await response.json()) as { data?: { status?: string } };
      return body.data?.status === 'processed' ? body.data.status : undefined;
    },
    timeoutMs,
    200,
  );
}

/** Stops a role with SIGTERM (podman's default stop signal) and returns its exit code. */
export async function stopRole(tool: Podman, container: string, graceSeconds: number): Promise<number> {
  await podman(tool, ['stop', '--time', String(graceSeconds), container]);
  return Number(await podman(tool, ['inspect', '--format', '{{.State.ExitCode}}', container]));
}
