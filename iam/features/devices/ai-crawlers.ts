/**
 * User agents of AI crawlers and AI assistants fetching on a user's behalf (req.fingerPrint.botAI).
 * Matched case-insensitively as substrings; the list follows the vendors' published agent names.
 */
export const AI_CRAWLER_AGENTS: readonly string[] = [
  'GPTBot', 'ChatGPT-User', 'OAI-SearchBot', 'ClaudeBot', 'Claude-Web', 'Claude-User', 'Claude-SearchBot', 'anthropic-ai',
  'CCBot', 'PerplexityBot', 'Perplexity-User', 'Bytespider', 'Google-Extended', 'GoogleOther', 'Applebot-Extended',
  'Amazonbot', 'meta-externalagent', 'meta-externalfetcher', 'FacebookBot', 'Diffbot', 'cohere-ai', 'cohere-training-data-crawler',
  'YouBot', 'ImagesiftBot', 'Omgilibot', 'Omgili', 'Timpibot', 'AI2Bot', 'Ai2Bot-Dolma', 'DuckAssistBot', 'MistralAI-User',
  'Kangaroo Bot', 'PanguBot', 'Webzio-Extended', 'VelenPublicWebCrawler', 'iaskspider', 'Scrapy', 'img2dataset', 'FirecrawlAgent',
]

const pattern = new RegExp(AI_CRAWLER_AGENTS.map((a) => a.replace(/[.*+?^${}()|[\]\\-]/g, '\\$&')).join('|'), 'i')

/** True when the user agent names a known AI crawler or agent. */
export function isAiCrawler(userAgent: string): boolean {
  return pattern.test(userAgent)
}
