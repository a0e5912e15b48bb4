/**
 * One PKCS#11 token, logged in as its user, with a small pool of sessions: a session
 * runs one operation at a time (PKCS#11 v2.40 §5.6), so concurrent token requests sign
 * on different sessions, on libuv's worker threads (the module is initialised for OS
 * locking). When an operation fails the token is distrusted: every idle session is
 * closed and object handles forgotten; the next operation opens a session again and,
 * should that fail too, finalises and initialises the module again and logs in — so a
 * token that comes back is used again without a restart (docs/operations.md#keys-in-an-hsm).
 */
import { Semaphore } from 'async-mutex';
import { ConfigError } from '../../../config/config-error.js';
import { KeyCustodyUnavailable } from '../../../ports/signing-key-custody.js';
import {
  failureName,
  loadBinding,
  type Attribute,
  type Handle,
  type Pkcs11Failure,
  type Pkcs11Module,
} from './pkcs11-binding.js';
import { CK } from './pkcs11-constants.js';

export interface Pkcs11TokenOptions {
  readonly library: string;
  readonly tokenLabel: string | undefined;
  readonly slot: number | undefined;
  /** The user PIN: kept in memory for logging in again after the token came back; never logged. */
  readonly pin: string;
  readonly sessions: number;
}

/** The binding's tags for parameter structures, which the mechanisms need. */
export interface ParameterTags {
  readonly rsaPss: number;
  readonly gcm: number;
}

const RETRY_AFTER_SECONDS = 5;

export class Pkcs11Token {
  private readonly idle: Handle[] = [];
  private readonly pool: Semaphore;
  private leased = 0;
  /** Set by a failure: the next session is opened afresh (and the module initialised again if need be). */
  private distrusted = false;
  private readonly handles = new Map<string, Handle>();
  private slot: Handle;

  private constructor(
    private readonly module: Pkcs11Module,
    readonly tags: ParameterTags,
    private readonly options: Pkcs11TokenOptions,
  ) {
    this.pool = new Semaphore(options.sessions);
    this.slot = this.initialise();
  }

  /**
   * Loads the module, finds the token and logs in; a missing module, an unknown token or a
   * refused PIN is a {@link ConfigError} naming the setting (one line at start).
   */
  static open(options: Pkcs11TokenOptions): Pkcs11Token {
    const binding = loadBinding();
    if ('missing' in binding)
      throw new ConfigError(
        'COREGATE_KEY_STORE',
        `=pkcs11 needs the PKCS#11 binding (npm pkcs11js, an optional dependency compiled at install), which is not installed (${binding.missing}): install a C++ compiler and run npm install again`,
      );
    const module = new binding.PKCS11();
    try {
      module.load(options.library);
    } catch (error) {
      throw new ConfigError(
        'COREGATE_PKCS11_LIBRARY',
        `cannot be loaded as a PKCS#11 module (${options.library}): ${firstLine(error)}`,
      );
    }
    return new Pkcs11Token(module, { rsaPss: binding.CK_PARAMS_RSA_PSS, gcm: binding.CK_PARAMS_GCM }, options);
  }

  /**
   * Runs `work` on a session of its own. A PKCS#11 failure distrusts the token and becomes
   * {@link KeyCustodyUnavailable} (503 with Retry-After at the token endpoint).
   */
  async withSession<T>(work: (module: Pkcs11Module, session: Handle) => Promise<T> | T): Promise<T> {
    const [, release] = await this.pool.acquire();
    this.leased += 1;
    try {
      let session: Handle;
      try {
        session = this.idle.pop() ?? this.openSession();
      } catch (error) {
        // While serving, a token gone (or a PIN changed under us) is unavailability, not a setting.
        this.distrust();
        throw new KeyCustodyUnavailable(
          `PKCS#11 token: cannot open a session: ${failureName(error)}`,
          RETRY_AFTER_SECONDS,
        );
      }
      try {
        const result = await work(this.module, session);
        this.idle.push(session);
        return result;
      } catch (error) {
        if (error instanceof KeyCustodyUnavailable || !isPkcs11Failure(error)) {
          this.idle.push(session);
          throw error;
        }
        this.closeQuietly(session);
        this.distrust();
        throw new KeyCustodyUnavailable(`PKCS#11 token: ${failureName(error)}`, RETRY_AFTER_SECONDS);
      }
    } finally {
      this.leased -= 1;
      release();
    }
  }

  /** The handle of the one object of `objectClass` labelled `label`, remembered until the token fails. */
  handle(session: Handle, objectClass: number, label: string): Handle | undefined {
    const key = `${objectClass}:${label}`;
    const known = this.handles.get(key);
    if (known) return known;
    const [found] = this.find(session, [
      { type: CK.CKA_CLASS, value: objectClass },
      { type: CK.CKA_LABEL, value: label },
    ]);
    if (found) this.handles.set(key, found);
    return found;
  }

  find(session: Handle, template: readonly Attribute[]): Handle[] {
    this.module.C_FindObjectsInit(session, template);
    try {
      const found: Handle[] = [];
      for (let batch = this.module.C_FindObjects(session, 100); batch.length > 0;) {
        found.push(...batch);
        batch = this.module.C_FindObjects(session, 100);
      }
      return found;
    } finally {
      this.module.C_FindObjectsFinal(session);
    }
  }

  /** Objects destroyed: their remembered handles go too. */
  forgetHandles(): void {
    this.handles.clear();
  }

  close(): void {
    for (const session of this.idle.splice(0)) this.closeQuietly(session);
    try {
      this.module.C_Finalize();
    } catch {
      // Closing: a token that fails now changes nothing.
    }
  }

  private distrust(): void {
    this.distrusted = true;
    this.handles.clear();
    for (const session of this.idle.splice(0)) this.closeQuietly(session);
  }

  private openSession(): Handle {
    if (!this.distrusted) return this.module.C_OpenSession(this.slot, CK.CKF_SERIAL_SESSION | CK.CKF_RW_SESSION);
    try {
      const session = this.module.C_OpenSession(this.slot, CK.CKF_SERIAL_SESSION | CK.CKF_RW_SESSION);
      this.login(session);
      this.distrusted = false;
      return session;
    } catch (error) {
      // Finalising under an operation still running on another session is undefined
      // behaviour: only the one caller alone with the token starts the module again.
      if (this.leased > 1) throw error;
    }
    try {
      this.module.C_Finalize();
    } catch {
      // Already finalised, or the module is in no state to say: initialise anyway.
    }
    this.slot = this.initialise();
    this.distrusted = false;
    return this.module.C_OpenSession(this.slot, CK.CKF_SERIAL_SESSION | CK.CKF_RW_SESSION);
  }

  /** Initialises the module, finds the slot and logs in on a first session, kept idle. */
  private initialise(): Handle {
    try {
      this.module.C_Initialize({ flags: CK.CKF_OS_LOCKING_OK });
    } catch (error) {
      if ((error as Pkcs11Failure).code !== CK.CKR_CRYPTOKI_ALREADY_INITIALIZED) throw error;
    }
    const slot = this.findSlot();
    const session = this.module.C_OpenSession(slot, CK.CKF_SERIAL_SESSION | CK.CKF_RW_SESSION);
    try {
      this.login(session);
    } catch (error) {
      this.closeQuietly(session);
      throw error;
    }
    this.idle.push(session);
    return slot;
  }

  private findSlot(): Handle {
    const slots = this.module.C_GetSlotList(true);
    const { tokenLabel, slot } = this.options;
    const found =
      tokenLabel === undefined
        ? slots.find((candidate) => slotNumber(candidate) === slot)
        : slots.find((candidate) => this.module.C_GetTokenInfo(candidate).label.trimEnd() === tokenLabel);
    if (found) return found;
    const present = slots.map(
      (candidate) => `${slotNumber(candidate)} "${this.module.C_GetTokenInfo(candidate).label.trimEnd()}"`,
    );
    throw tokenLabel === undefined
      ? new ConfigError(
          'COREGATE_PKCS11_SLOT',
          `names no slot with a token (${slot}); present: ${present.join(', ') || 'none'}`,
        )
      : new ConfigError(
          'COREGATE_PKCS11_TOKEN_LABEL',
          `names no token present ("${tokenLabel}"); present: ${present.join(', ') || 'none'}`,
        );
  }

  private login(session: Handle): void {
    try {
      this.module.C_Login(session, CK.CKU_USER, this.options.pin);
    } catch (error) {
      const code = (error as Pkcs11Failure).code;
      if (code === CK.CKR_USER_ALREADY_LOGGED_IN) return;
      if (code !== undefined && PIN_REFUSALS.has(code))
        throw new ConfigError('COREGATE_PKCS11_PIN_FILE', `holds a PIN the token refused (${failureName(error)})`);
      throw error;
    }
  }

  private closeQuietly(session: Handle): void {
    try {
      this.module.C_CloseSession(session);
    } catch {
      // A session of a failed token may be gone already.
    }
  }
}

/** CKR_PIN_INCORRECT, CKR_PIN_INVALID, CKR_PIN_LEN_RANGE, CKR_PIN_EXPIRED, CKR_PIN_LOCKED. */
const PIN_REFUSALS = new Set([0xa0, 0xa1, 0xa2, 0xa3, 0xa4]);

function slotNumber(slot: Handle): number {
  return Number(slot.length >= 8 ? slot.readBigUInt64LE() : slot.readUInt32LE());
}

function isPkcs11Failure(error: unknown): error is Pkcs11Failure {
  return (
    error instanceof Error && (typeof (error as Pkcs11Failure).code === 'number' || /CKR_|PKCS11/i.test(error.message))
  );
}

function firstLine(error: unknown): string {
  return (error instanceof Error ? error.message : String(error)).split('\n')[0]!;
}
