/**
 * `COREGATE_WORKERS=N` (N > 1, PostgreSQL only): the process that `serve` starts
 * becomes a supervisor. It prepares the database once (migrations, first signing
 * key), forks N node:cluster workers that each run the whole server on the same
 * port, restarts a worker that dies unexpectedly (with backoff), and on SIGTERM or
 * SIGINT asks every worker to shut down gracefully and exits 0 when all did.
 *
 * Workers share nothing in memory: everything that must agree across processes
 * lives in the database (clients, refresh token chains, signing keys, core
 * sessions and their renewal lease); what a worker caches is bounded in time
 * (client status, signing keys). The supervisor holds no connection to the
 * database or the core while it runs and serves no request.
 */
import cluster, { type Worker } from 'node:cluster';
import type { Logger } from 'pino';
import { createLogger } from '../adapters/logging/logger.js';
import type { Config } from '../config/config.js';
import { openServices } from './services.js';

/** The message a worker sends once it serves (its server listens and its keys are ready). */
const READY = 'coregate:ready';

/** Backoff of restarts: doubled per consecutive early death of a worker slot, up to the maximum. */
const RESTART_BACKOFF_MS = { initial: 500, max: 30_000 } as const;
/** A worker that served this long before dying starts its slot's backoff afresh. */
const STABLE_AFTER_MS = 30_000;

export interface SupervisorOptions {
  /** How long workers get to finish in-flight requests (the workers' own budget). */
  readonly shutdownGraceMs: number;
  readonly logger?: Logger;
}

/** Whether `serve` should supervise workers rather than serve itself. */
export function supervisesWorkers(config: Config): boolean {
  return config.workers > 1 && cluster.isPrimary;
}

/** In a worker: tells the supervisor that this worker serves. Does nothing outside a cluster. */
export function reportReady(url: string): void {
  if (cluster.isWorker) process.send?.({ type: READY, url });
}

/**
 * In a worker that has shut down: leaves the cluster, so that the process exits
 * with its status once nothing else is pending (the IPC channel would keep it
 * alive). Does nothing outside a cluster.
 */
export function leaveCluster(): void {
  if (cluster.isWorker && cluster.worker?.isConnected()) cluster.worker.disconnect();
}

/**
 * Migrates the database and creates the first signing key before any worker
 * starts, so that a broken database or key stops the service once, here, instead
 * of crash-looping every worker. (Workers would also cope with each other: the
 * migrations run under an advisory lock and a unique index allows one active key.)
 */
async function prepareDatabase(config: Config, logger: Logger): Promise<void> {
  const services = await openServices(config, 'server', { logger });
  try {
    await services.keyring.ensureActiveKey();
  } finally {
    await services.close();
  }
}

interface Slot {
  readonly index: number;
  worker: Worker | undefined;
  startedAt: number;
  ready: boolean;
  /** Consecutive deaths before {@link STABLE_AFTER_MS} of service. */
  failures: number;
  restartTimer: NodeJS.Timeout | undefined;
}

/**
 * Runs the supervisor until SIGTERM/SIGINT; resolves with the exit status: 0 when
 * every worker shut down cleanly, 1 when the first workers could not start or a
 * worker failed or overran its shutdown.
 */
export async function superviseWorkers(config: Config, options: SupervisorOptions): Promise<number> {
  const logger = (options.logger ?? createLogger(config.logLevel)).child({ role: 'supervisor' });
  await prepareDatabase(config, logger);

  const slots: Slot[] = Array.from({ length: config.workers }, (_, index) => ({
    index,
    worker: undefined,
    startedAt: 0,
    ready: false,
    failures: 0,
    restartTimer: undefined,
  }));
  let phase: 'starting' | 'running' | 'stopping' = 'starting';
  let status = 0;
  let finish!: (status: number) => void;
  const finished = new Promise<number>((resolve) => (finish = resolve));
  let killTimer: NodeJS.Timeout | undefined;

  const live = () => slots.filter((slot) => slot.worker !== undefined);

  const maybeFinish = () => {
    if (phase !== 'stopping' || live().length > 0) return;
    clearTimeout(killTimer);
    process.removeListener('SIGTERM', onSigterm);
    process.removeListener('SIGINT', onSigint);
    logger.info({ status }, status === 0 ? 'all workers stopped' : 'workers stopped with errors');
    finish(status);
  };

  const stop = (reason: string, exitStatus: number) => {
    if (phase === 'stopping') return;
    phase = 'stopping';
    status = Math.max(status, exitStatus);
    logger.info({ reason, workers: live().length }, 'stopping workers');
    for (const slot of slots) clearTimeout(slot.restartTimer);
    for (const slot of live()) {
      // A signal, not worker.kill(): the worker's own SIGTERM handler drains its requests.
      slot.worker!.process.kill('SIGTERM');
    }
    // The workers stop themselves within their budget; past it plus a margin, no longer wait.
    killTimer = setTimeout(() => {
      for (const slot of live()) {
        logger.error({ workerPid: slot.worker!.process.pid }, 'worker did not stop in time; killing it');
        status = 1;
        slot.worker!.process.kill('SIGKILL');
      }
    }, options.shutdownGraceMs + 500);
    killTimer.unref();
    maybeFinish();
  };

  const fork = (slot: Slot) => {
    slot.restartTimer = undefined;
    const worker = cluster.fork();
    slot.worker = worker;
    slot.startedAt = Date.now();
    slot.ready = false;
    worker.on('message', (message: unknown) => {
      if ((message as { type?: unknown } | null)?.type !== READY) return;
      slot.ready = true;
      logger.info({ workerPid: worker.process.pid, slot: slot.index }, 'worker serving');
      if (phase === 'starting' && slots.every((each) => each.ready)) {
        phase = 'running';
        logger.info(
          { workers: slots.length, url: (message as { url?: unknown }).url },
          `all ${slots.length} workers serving`,
        );
      }
    });
    worker.on('exit', (code, signal) => {
      slot.worker = undefined;
      const pid = worker.process.pid;
      if (phase === 'stopping') {
        if (code !== 0) {
          status = 1;
          logger.error({ workerPid: pid, code, signal }, 'worker failed to shut down cleanly');
        }
        maybeFinish();
        return;
      }
      if (phase === 'starting') {
        // A worker that cannot start (port taken, bad TLS files, ...) will not do better when forked again.
        logger.error(
          { workerPid: pid, code, signal, slot: slot.index },
          'worker exited before all workers were serving; stopping',
        );
        stop('a worker could not start', 1);
        return;
      }
      slot.failures = Date.now() - slot.startedAt >= STABLE_AFTER_MS && slot.ready ? 0 : slot.failures + 1;
      const delay = Math.min(RESTART_BACKOFF_MS.initial * 2 ** Math.max(0, slot.failures - 1), RESTART_BACKOFF_MS.max);
      logger.error(
        { workerPid: pid, code, signal, slot: slot.index, restartInMs: delay },
        'worker died unexpectedly; restarting it',
      );
      slot.restartTimer = setTimeout(() => fork(slot), delay);
    });
  };

  const onSigterm = () => stop('SIGTERM', 0);
  const onSigint = () => stop('SIGINT', 0);
  process.on('SIGTERM', onSigterm);
  process.on('SIGINT', onSigint);

  logger.info({ workers: config.workers }, `starting ${config.workers} workers`);
  for (const slot of slots) fork(slot);
  return finished;
}
