/** The scopes an API key can carry (spec: Authentication). */
export const SCOPES = ["subtitles:write", "subtitles:read"] as const;
export type Scope = (typeof SCOPES)[number];

export const isScope = (value: string): value is Scope => (SCOPES as readonly string[]).includes(value);
