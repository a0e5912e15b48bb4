import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { IpAllowList, parseCidr } from '../../src/domain/ip-allow-list.js';

describe('parseCidr', () => {
  const valid: Array<[string, string]> = [
    ['10.0.0.0/8', '10.0.0.0/8'],
    ['192.168.1.7', '192.168.1.7/32'],
    [' 192.168.1.0/24 ', '192.168.1.0/24'],
    ['0.0.0.0/0', '0.0.0.0/0'],
    ['10.1.2.3/032', '10.1.2.3/32'],
    ['2001:db8::/32', '2001:db8::/32'],
    ['::1', '::1/128'],
    ['2001:db8::1/128', '2001:db8::1/128'],
    ['::/0', '::/0'],
    ['::ffff:10.0.0.0/104', '::ffff:10.0.0.0/104'],
  ];
  for (const [text, cidr] of valid) {
    it(`accepts "${text}" as ${cidr}`, () => assert.deepEqual(parseCidr(text), { ok: true, cidr }));
  }

  const invalid = [
    '',
    '/24',
    '10.0.0.0/33',
    '10.0.0.0/-1',
    '10.0.0.0/',
    '10.0.0.0/abc',
    '10.0.0.0/8/8',
    '10.0.0.256/8',
    '10.0.0/8',
    'example.com/24',
    '2001:db8::/129',
    '2001:db8::/1000',
    '2001:db8:::1/64',
    '10.0.0.0/ 8',
  ];
  for (const text of invalid) {
    it(`refuses "${text}" with a reason`, () => {
      const result = parseCidr(text);
      assert.equal(result.ok, false);
      if (!result.ok) assert.ok(result.reason.length > 0);
    });
  }
});

describe('IpAllowList', () => {
  it('allows everyone when empty', () => {
    const list = new IpAllowList([]);
    assert.equal(list.isOpen, true);
    for (const ip of ['10.0.0.1', '::1', '2001:db8::1', 'garbage']) assert.equal(list.allows(ip), true);
  });

  it('matches IPv4 blocks and single addresses', () => {
    const list = new IpAllowList(['10.0.0.0/8', '192.168.1.7/32']);
    assert.equal(list.isOpen, false);
    assert.equal(list.allows('10.255.0.1'), true);
    assert.equal(list.allows('10.0.0.0'), true);
    assert.equal(list.allows('11.0.0.1'), false);
    assert.equal(list.allows('192.168.1.7'), true);
    assert.equal(list.allows('192.168.1.8'), false);
  });

  it('matches IPv6 blocks', () => {
    const list = new IpAllowList(['2001:db8::/32', '::1/128']);
    assert.equal(list.allows('2001:db8:ffff::1'), true);
    assert.equal(list.allows('2001:db9::1'), false);
    assert.equal(list.allows('::1'), true);
    assert.equal(list.allows('::2'), false);
  });

  it('matches an IPv4 caller seen through a dual-stack socket (IPv4-mapped IPv6)', () => {
    const list = new IpAllowList(['10.0.0.0/8']);
    assert.equal(list.allows('::ffff:10.1.2.3'), true);
    assert.equal(list.allows('::FFFF:10.1.2.3'), true);
    assert.equal(list.allows('::ffff:11.1.2.3'), false);
  });

  it('does not let an IPv4 block match unrelated IPv6 addresses', () => {
    const list = new IpAllowList(['0.0.0.0/0']);
    assert.equal(list.allows('10.0.0.1'), true);
    assert.equal(list.allows('2001:db8::1'), false);
  });

  it('refuses what is not an IP address', () => {
    const list = new IpAllowList(['10.0.0.0/8']);
    for (const ip of ['', 'localhost', '10.0.0', '10.0.0.1:443', 'undefined']) assert.equal(list.allows(ip), false, ip);
  });

  it('works on the canonical output of parseCidr', () => {
    const cidrs = ['192.168.0.0/16', '2001:db8::5', '172.16.0.1'].map((text) => {
      const parsed = parseCidr(text);
      assert.ok(parsed.ok);
      return parsed.cidr;
    });
    const list = new IpAllowList(cidrs);
    assert.equal(list.allows('192.168.44.1'), true);
    assert.equal(list.allows('2001:db8::5'), true);
    assert.equal(list.allows('2001:db8::6'), false);
    assert.equal(list.allows('172.16.0.1'), true);
    assert.equal(list.allows('172.16.0.2'), false);
  });
});
