import assert from "node:assert/strict";
import { mkdir, mkdtemp, rm, symlink, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { Page } from "../../src/spider/page.ts";
import { Spider } from "../../src/spider/spider.ts";
import { checkSteps } from "../../src/spider/step_checks.ts";

class Forms extends Spider {
  override parse(_page: Page) {}
  fillForm(_page: unknown) {}
}

Deno.test("a request that uploads files is refused without browser_upload_dir, as upload", async () => {
  const refusal = await checkSteps(
    new Forms(),
    [{ click: "#more" }, { set_input_files: { selector: "#file", files: ["/etc/hostname"] } }],
    null,
  );
  assert.equal(refusal?.reason, "upload");
  assert.match(refusal!.detail, /needs browser_upload_dir/);
  assert.equal(await checkSteps(new Forms(), [{ click: "#more" }], null), undefined);
});

Deno.test("uploads may come only from inside browser_upload_dir, symlinks followed", async () => {
  const dir = await mkdtemp(join(tmpdir(), "netweir-upload-"));
  const uploads = join(dir, "uploads");
  try {
    await mkdir(join(uploads, "sub"), { recursive: true });
    await writeFile(join(uploads, "ok.txt"), "ok");
    await writeFile(join(uploads, "sub", "deep.txt"), "ok");
    await writeFile(join(dir, "secret.txt"), "secret");
    await symlink(join(dir, "secret.txt"), join(uploads, "link.txt"));
    const check = (files: unknown) =>
      checkSteps(new Forms(), [{ set_input_files: { selector: "#f", files } }], uploads);
    for (const allowed of [join(uploads, "ok.txt"), "sub/deep.txt", [join(uploads, "ok.txt"), "sub/deep.txt"]]) {
      assert.equal(await check(allowed), undefined, JSON.stringify(allowed));
    }
    const refused = [
      join(dir, "secret.txt"),
      join(uploads, "..", "secret.txt"),
      "../secret.txt",
      "link.txt",
      "missing.txt",
      [join(uploads, "ok.txt"), "/etc/hostname"],
      [],
    ];
    for (const files of refused) assert.equal((await check(files))?.reason, "upload", JSON.stringify(files));
    const actionSpelling = [{ action: "set_input_files", selector: "#f", files: "ok.txt" }];
    assert.equal(await checkSteps(new Forms(), actionSpelling, uploads), undefined);
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
});

Deno.test("a call step may name only the spider's own methods; a step with no known action is refused", async () => {
  const spider = new Forms();
  assert.equal(await checkSteps(spider, [{ call: "fillForm" }], null), undefined);
  assert.equal(await checkSteps(spider, [{ action: "call", method: "parse" }], null), undefined);
  for (const bad of [{ call: "closed" }, { call: "constructor" }, { action: "call", method: "__defineGetter__" }]) {
    assert.equal((await checkSteps(spider, [bad], null))?.reason, "steps", JSON.stringify(bad));
  }
  assert.match((await checkSteps(spider, [{ jump: "#x" }], null))!.detail, /step 0: no action/);
  assert.match((await checkSteps(spider, [{ click: "#a", fill: {} }], null))!.detail, /more than one action/);
});
