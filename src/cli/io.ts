/** Where a command writes: data to `out` (stdout), everything else to `err` (stderr). */
export interface CliIo {
  out(text: string): void;
  err(text: string): void;
}

export const processIo: CliIo = {
  out: (text) => process.stdout.write(text.endsWith('\n') ? text : `${text}\n`),
  err: (text) => process.stderr.write(text.endsWith('\n') ? text : `${text}\n`),
};

/** Collects output in memory, for commands run on behalf of another process. */
export function bufferedIo(): CliIo & { stdout: string; stderr: string } {
  const io = {
    stdout: '',
    stderr: '',
    out(text: string) {
      io.stdout += text.endsWith('\n') ? text : `${text}\n`;
    },
    err(text: string) {
      io.stderr += text.endsWith('\n') ? text : `${text}\n`;
    },
  };
  return io;
}

/** Thrown for wrong command-line usage: exit status 2 with the message. */
export class UsageError extends Error {}
