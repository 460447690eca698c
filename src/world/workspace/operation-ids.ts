/**
 * The names of a workspace package's built-in file tools. Checking a world file needs only these;
 * the tools themselves (./operations.ts, their schemas and file-system code) load when a world with
 * a workspace package is compiled or one of its tools runs.
 */
export const WORKSPACE_OPERATIONS = [
  'read_file',
  'write_file',
  'edit_file',
  'list_dir',
  'glob',
  'grep',
] as const;

export type WorkspaceOperation = (typeof WORKSPACE_OPERATIONS)[number];

export const isWorkspaceOperation = (id: string): id is WorkspaceOperation =>
  (WORKSPACE_OPERATIONS as readonly string[]).includes(id);
