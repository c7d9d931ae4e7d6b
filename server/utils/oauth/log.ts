/**
 * One JSON line per event on the console, like the rest of the gateway. Never pass tokens, codes,
 * cookies or secrets here.
 */
export function logOAuth(level: 'info' | 'warn' | 'error', msg: string, fields: Record<string, unknown> = {}): void {
  const line = JSON.stringify({ level, time: new Date().toISOString(), scope: 'oauth', msg, ...fields })
  if (level === 'info') console.log(line)
  else if (level === 'warn') console.warn(line)
  else console.error(line)
}
