// Where a V8 CPU profile (.cpuprofile, from --cpu-prof) spends its time: by package and by function.

interface ProfileNode { id: number; callFrame: { functionName: string; url: string; lineNumber: number }; children?: number[] }
export interface CpuProfile { nodes: ProfileNode[]; samples: number[]; timeDeltas: number[]; startTime: number; endTime: number }

/** node_modules package, our workspace file, node internals, or V8's own buckets ((garbage collector), (idle), …). */
function ownerOf(frame: ProfileNode["callFrame"]): string {
  const { url, functionName } = frame;
  if (!url) return functionName.startsWith("(") ? functionName : "(native)";
  const pkg = /node_modules\/((?:@[^/]+\/)?[^/]+)/.exec(url);
  if (pkg?.[1]) return pkg[1];
  if (url.startsWith("node:")) return "node:internals";
  const ours = /\/(shared|control-plane|gpu-worker|bench|test)\/src\//.exec(url);
  return ours ? `@caption/${ours[1]}` : url;
}

export function summarise(profile: CpuProfile, top = 25): string[] {
  const byId = new Map(profile.nodes.map((n) => [n.id, n]));
  const self = new Map<number, number>();
  profile.samples.forEach((id, i) => self.set(id, (self.get(id) ?? 0) + (profile.timeDeltas[i] ?? 0)));
  const total = [...self.values()].reduce((sum, us) => sum + us, 0);
  const byOwner = new Map<string, number>();
  const byFunction = new Map<string, number>();
  for (const [id, us] of self) {
    const frame = (byId.get(id) as ProfileNode).callFrame;
    const owner = ownerOf(frame);
    byOwner.set(owner, (byOwner.get(owner) ?? 0) + us);
    const name = `${frame.functionName || "(anonymous)"}  ${frame.url.replace(/^.*node_modules\//, "").replace(/^file:\/\/.*?\/(shared|control-plane|bench)\//, "$1/")}:${frame.lineNumber + 1}`;
    byFunction.set(name, (byFunction.get(name) ?? 0) + us);
  }
  const share = (us: number) => `${((100 * us) / total).toFixed(1).padStart(5)}%`;
  const lines = [`profile: ${((profile.endTime - profile.startTime) / 1e6).toFixed(1)} s wall, ${(total / 1e6).toFixed(1)} s sampled`, "", "self time by owner:"];
  for (const [owner, us] of [...byOwner].sort((a, b) => b[1] - a[1]).slice(0, top)) lines.push(`  ${share(us)}  ${owner}`);
  lines.push("", "self time by function:");
  for (const [name, us] of [...byFunction].sort((a, b) => b[1] - a[1]).slice(0, top)) lines.push(`  ${share(us)}  ${name}`);
  return lines;
}
