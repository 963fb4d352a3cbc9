/**
 * A /proc/<pid>/stat line split into pid, command name and the fields after it (`fields[0]` is proc(5)'s
 * field 3, the state). The command name may hold spaces and parentheses: the fields resume after the last ")".
 */
export function splitProcStat(stat: string): { pid: number; command: string; fields: string[] } {
  const open = stat.indexOf("(");
  const close = stat.lastIndexOf(")");
  return { pid: Number(stat.slice(0, open).trim()), command: stat.slice(open + 1, close), fields: stat.slice(close + 2).split(" ") };
}
