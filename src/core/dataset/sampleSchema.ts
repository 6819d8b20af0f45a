// A curator's edit must still be a sample of its type (issue 12, item 6): checked against the
// per-type schema shared with the renderer's editor, rejected with the offending field named.
import type { SampleType } from '../../shared/domain';
import { AppError } from '../../shared/errors';
import { sampleContentIssues } from '../../shared/contract/samples';
import type { SampleContent } from './types';

export function validateSampleContent(type: SampleType, content: unknown): SampleContent {
  const issues = sampleContentIssues(type, content);
  if (issues.length) {
    const list = issues.slice(0, 5).map((i) => `${i.field ? `content.${i.field}` : 'content'}: ${i.message}`);
    throw new AppError('Invalid', `edited ${type} sample does not fit its schema: ${list.join('; ')}`);
  }
  return content as SampleContent;
}
