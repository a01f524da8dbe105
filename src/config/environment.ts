/** The only module that reads process.env: everything else receives this snapshot. */
export type Environment = Readonly<Record<string, string | undefined>>;

export function readEnvironment(): Environment {
  return { ...process.env };
}
