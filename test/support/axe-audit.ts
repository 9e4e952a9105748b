/**
 * An accessibility audit in the browser: axe-core (the npm package, injected into the page or
 * frame) with its WCAG 2.x A/AA rules and best practices. A test fails on every serious or critical
 * violation. Pages under a strict CSP need a context opened with `bypassCSP: true` for the injection.
 */
import { createRequire } from 'node:module';
import type { Frame, Page } from 'playwright-core';

const AXE_PATH = createRequire(import.meta.url).resolve('axe-core/axe.min.js');

export interface AxeFinding {
  id: string;
  impact: string;
  help: string;
  targets: string[];
}

/** Runs axe on the page (or one frame of it) and answers the serious and critical violations. */
export async function seriousViolations(target: Page | Frame): Promise<AxeFinding[]> {
  await target.addScriptTag({ path: AXE_PATH });
  const findings = await target.evaluate(`(async () => {
    const result = await axe.run(document, { resultTypes: ['violations'] });
    return result.violations.map((v) => ({ id: v.id, impact: v.impact || '', help: v.help, targets: v.nodes.map((n) => n.target.join(' ')) }));
  })()`);
  return (findings as AxeFinding[]).filter((finding) => finding.impact === 'serious' || finding.impact === 'critical');
}

/** The findings as lines for a readable failure. */
export const describeFindings = (label: string, findings: readonly AxeFinding[]): string[] =>
  findings.map((finding) => `${label}: ${finding.id} (${finding.impact}) ${finding.help} — ${finding.targets.slice(0, 3).join(', ')}`);
