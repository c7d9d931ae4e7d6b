import { describe, expect, it } from 'vitest'
import { parsePrometheusText } from '../helpers/prometheus'

const good = [
  '# HELP req_total Requests',
  '# TYPE req_total counter',
  'req_total{route="/login",status="401"} 3',
  'req_total{route="/a \\"b\\"\\\\c",status="200"} 1 1700000000000',
  '# TYPE lat histogram',
  'lat_bucket{le="0.1"} 1',
  'lat_bucket{le="+Inf"} 2',
  'lat_sum 0.3',
  'lat_count 2',
  '# TYPE lag gauge',
  'lag Nan',
  '',
].join('\n')

describe('the test helper reading Prometheus text', () => {
  it('reads series, escaped label values and histogram parts', () => {
    const text = parsePrometheusText(good)
    expect(text.value('req_total', { status: '401', route: '/login' })).toBe(3)
    expect(text.value('req_total', { route: '/a "b"\\c', status: '200' })).toBe(1)
    expect(text.value('lat_bucket', { le: '+Inf' })).toBe(2)
    expect(text.value('lat_count')).toBe(2)
    expect(text.value('lag')).toBeNaN()
    expect(text.value('req_total', { route: '/other', status: '200' })).toBeUndefined()
  })

  it.each([
    ['a sample of an undeclared family', 'other_total 1'],
    ['a repeated series', 'req_total{route="/login",status="401"} 4'],
    ['a value that is not a number', 'req_total{route="/x",status="200"} many'],
    ['an unterminated label value', 'req_total{route="/x} 1'],
    ['a bad label name', 'req_total{1route="/x"} 1'],
    ['a family declared twice', '# TYPE req_total gauge'],
    ['an unknown type', '# TYPE thing countr'],
  ])('refuses %s', (_, line) => {
    expect(() => parsePrometheusText(`${good}${line}\n`)).toThrow()
  })
})
