// miniWorkspace in a temp folder removed after the test file.
import { tempWorkspace } from '../helpers/workspace';
import { miniWorkspaceAt, type Mini } from './mini';

export function miniWorkspace(prefix = 'reflection-mini-'): Mini {
  return miniWorkspaceAt(tempWorkspace(prefix));
}
