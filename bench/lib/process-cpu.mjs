/**
 * A process's own CPU time from /proc (Linux): what bench/cpu-per-request.mjs and
 * bench/gateway-cpu.mjs compare builds by.
 */
import { execFileSync } from 'node:child_process'
import { readFileSync } from 'node:fs'

const ticksPerSecond = (() => {
  try {
    return Number(execFileSync('getconf', ['CLK_TCK'], { encoding: 'utf8' }).trim()) || 100
  } catch {
    return 100
  }
})()

/** utime + stime of `pid` in microseconds (fields 14 and 15 of /proc/<pid>/stat, after the command's closing parenthesis). */
export function cpuMicros(pid) {
  const stat = readFileSync(`/proc/${pid}/stat`, 'utf8')
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ')
  return ((Number(fields[11]) + Number(fields[12])) / ticksPerSecond) * 1e6
}
