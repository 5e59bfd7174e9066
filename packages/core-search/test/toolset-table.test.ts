import { describe, expect, it } from 'vitest';
import { ToolsetTable } from '../src/retrieval/toolset-table.js';

describe('ToolsetTable', () => {
  it('numbers each toolset once, counts its tools and knows each tool by id', () => {
    const table = new ToolsetTable();
    const mail = table.numberOf('mail');
    const web = table.numberOf('web');
    expect(table.numberOf('mail')).toBe(mail);
    expect(web).not.toBe(mail);
    for (const id of [0, 1, 2]) table.assign(id, mail);
    table.add(mail, 3);
    table.assign(200, web); // past the first capacity: grows, and the ids between stay unassigned
    table.add(web, 1);
    expect([table.of(0), table.of(2), table.of(200), table.of(100), table.of(5000)]).toEqual([
      mail,
      mail,
      web,
      -1,
      -1,
    ]);
    expect([table.name(mail), table.size(mail), table.name(web), table.size(web)]).toEqual([
      'mail',
      3,
      'web',
      1,
    ]);
    expect(table.known()).toEqual(['mail', 'web']);
  });

  it('forgets removed tools; an emptied toolset is unknown until a tool joins it again, under its number', () => {
    const table = new ToolsetTable();
    const mail = table.numberOf('mail');
    table.assign(0, mail);
    table.assign(1, mail);
    table.add(mail, 2);
    table.remove(0);
    table.remove(0); // already gone: nothing more to count
    expect([table.of(0), table.size(mail), table.has('mail')]).toEqual([-1, 1, true]);
    table.remove(1);
    expect([table.has('mail'), table.has('never'), table.known()]).toEqual([false, false, []]);
    table.assign(7, table.numberOf('mail'));
    table.add(mail, 1);
    expect([table.numberOf('mail'), table.of(7), table.has('mail'), table.known()]).toEqual([
      mail,
      mail,
      true,
      ['mail'],
    ]);
  });
});
