/**
 * The PKCS#11 binding (npm `pkcs11js`, a native addon over the vendor's module) and
 * the part of it coregate calls. The binding is an optional dependency: it is built by
 * node-gyp at install, and an installation where it cannot be built still installs and
 * runs with the `file` key store. So it is loaded when the `pkcs11` store opens, and
 * typed here by what we call, not by its own declarations (the build needs no addon).
 */
import { createRequire } from 'node:module';

/** An object, session or slot handle (a CK_ULONG in native byte order). */
export type Handle = Buffer;

export interface Attribute {
  readonly type: number;
  readonly value?: number | boolean | string | Buffer;
}

export interface Mechanism {
  readonly mechanism: number;
  readonly parameter?: Buffer | Readonly<Record<string, unknown>>;
}

/** The calls of `pkcs11js.PKCS11` used here; each throws a {@link Pkcs11Failure} on a CKR_ other than CKR_OK. */
export interface Pkcs11Module {
  load(path: string): void;
  C_Initialize(options?: { flags?: number }): void;
  C_Finalize(): void;
  C_GetSlotList(tokenPresent?: boolean): Handle[];
  C_GetTokenInfo(slot: Handle): { label: string };
  C_OpenSession(slot: Handle, flags: number): Handle;
  C_CloseSession(session: Handle): void;
  C_Login(session: Handle, userType: number, pin?: string): void;
  C_FindObjectsInit(session: Handle, template: readonly Attribute[]): void;
  C_FindObjects(session: Handle, maxObjectCount: number): Handle[];
  C_FindObjectsFinal(session: Handle): void;
  C_GetAttributeValue(session: Handle, object: Handle, template: readonly Attribute[]): Attribute[];
  C_DestroyObject(session: Handle, object: Handle): void;
  C_GenerateKeyPair(
    session: Handle,
    mechanism: Mechanism,
    publicTemplate: readonly Attribute[],
    privateTemplate: readonly Attribute[],
  ): { publicKey: Handle; privateKey: Handle };
  C_GenerateKey(session: Handle, mechanism: Mechanism, template: readonly Attribute[]): Handle;
  C_SignInit(session: Handle, mechanism: Mechanism, key: Handle): void;
  C_SignAsync(session: Handle, data: Buffer, signature: Buffer): Promise<Buffer>;
  C_EncryptInit(session: Handle, mechanism: Mechanism, key: Handle): void;
  C_Encrypt(session: Handle, data: Buffer, encrypted: Buffer): Buffer;
  C_DecryptInit(session: Handle, mechanism: Mechanism, key: Handle): void;
  C_Decrypt(session: Handle, encrypted: Buffer, data: Buffer): Buffer;
}

interface Binding {
  readonly PKCS11: new () => Pkcs11Module;
  /** The binding's own tags for mechanism parameter structures (not PKCS#11 numbers). */
  readonly CK_PARAMS_RSA_PSS: number;
  readonly CK_PARAMS_GCM: number;
}

/** A CKR_ code returned by the module (`code`), and the function that returned it. */
export interface Pkcs11Failure extends Error {
  readonly code?: number;
  readonly method?: string;
}

/** The failure's CKR_ name (`CKR_PIN_INCORRECT`) as the binding reports it, for messages and logs. */
export function failureName(error: unknown): string {
  const message = error instanceof Error ? error.message : String(error);
  return /CKR_[A-Z_]+/.exec(message)?.[0] ?? message;
}

/** The binding, loaded on first use; `undefined` with the reason when it is not installed. */
export function loadBinding(): Binding | { readonly missing: string } {
  try {
    return createRequire(import.meta.url)('pkcs11js') as Binding;
  } catch (error) {
    return { missing: (error instanceof Error ? error.message : String(error)).split('\n')[0]! };
  }
}
