// Opt-out, retention, on-demand conversation archives and settings validation: thin handlers over the
// lifecycle services, mapped to the contract's DTOs.
import type { PruneOutcome } from '../../shared/contract';
import { addExclusion, listExclusions, purgeExclusion, removeExclusion } from '../../core/lifecycle/exclusions';
import { exportConversations } from '../../core/lifecycle/archive';
import { pruneOldData, type PruneResult } from '../../core/lifecycle/retention';
import { loadSettings, settingsPath, validateSettings } from '../../core/lifecycle/settings';
import type { Handlers } from '../registry';

export const pruneDto = (r: PruneResult): PruneOutcome => ({
  days: r.days,
  cutoff: r.cutoff,
  dryRun: r.dryRun,
  deleted: r.deleted,
  kept: Object.entries(r.kept).flatMap(([table, reasons]) => Object.entries(reasons).map(([reason, count]) => ({ table, reason, count }))),
  freedPages: r.freedPages,
  previewToken: r.previewToken,
  safeCopyUntil: r.safeCopyUntil,
  needsForce: r.needsForce,
});

export const lifecycleHandlers = {
  'exclusions.list': (_input, env) => listExclusions(env.session.serviceContext()),
  'exclusions.add': (input, env) => addExclusion(env.session.serviceContext(), input),
  'exclusions.remove': (input, env) => removeExclusion(env.session.serviceContext(), input.id),
  'exclusions.purge': (input, env) =>
    purgeExclusion(env.session.serviceContext(), input.id, { dryRun: input.dryRun, confirm: input.confirm }),
  'retention.prune': (input, env) =>
    pruneDto(
      pruneOldData(env.session.serviceContext(), {
        days: input.days,
        dryRun: input.dryRun,
        confirm: input.confirm,
        previewToken: input.previewToken,
        force: input.force,
      }),
    ),
  // The renderer is untrusted, so it cannot choose the output path: archives go to the workspace's exports folder.
  'conversations.export': (input, ctx) => exportConversations(ctx, input),
  'settings.validate': (input, env) => {
    const file = settingsPath(env.session.dir);
    if (input.settings !== undefined) {
      const { settings, warnings } = validateSettings(input.settings);
      return {
        valid: warnings.length === 0,
        problems: warnings,
        values: settings as unknown as Record<string, unknown>,
        source: 'input' as const,
        file,
      };
    }
    const loaded = loadSettings(env.session.dir);
    return {
      valid: loaded.warnings.length === 0,
      problems: loaded.warnings,
      values: loaded.settings as unknown as Record<string, unknown>,
      source: 'file' as const,
      file,
    };
  },
} satisfies Partial<Handlers>;
