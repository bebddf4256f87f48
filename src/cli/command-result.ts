// What an admin command answers, whichever file runs it (commands.ts, doctor.ts) and however it
// reaches the operator (main.ts, the admin socket).
export interface CommandResult {
  code: number;
  stdout: string;
  stderr: string;
}
