/**
 * Markup that trips parsers up, for the tests that hold a fast path (a scan, the light document) to the DOM: base
 * tags, valueless and duplicate attributes, entities, unclosed and misnested tags, raw-text elements, templates,
 * foreign content (SVG, MathML), forms, and the elements a parser adds or drops by itself.
 */
export const AWKWARD_PAGES: Record<string, string> = {
  base: `<html><head><base target="_self"><BASE HREF="/b/"><base href="/ignored/"></head>
    <body><a href="one.html">1</a><a href="../two.html#x">2</a><area href="map.html"><a href="//other.test/">o</a></body>`,
  valueless: `<a href>empty</a><a download href=x.zip>file</a><a title>no link</a><a href = "spaced" >s</a>`,
  uppercase: `<A HREF="/Upper" TITLE='Mixed'>u</A><AREA HREF=/area ALT=x><Img SRC=/i.png><LINK REL=next HREF=/n>`,
  entities: `<a href="/a?x=1&amp;y=2&lt;3">e</a><a href="/&#x41;&#66;">n</a><a href="/q?a=1&copy=2&notanentity;">c</a>
    <a href='/caf&eacute;'>é</a><a href="/&amp">amp</a>`,
  broken: `<a href=1><a href=2>implied close</a><p><a href=3></p></a><div><a href="4" class=x</div>
    <a href='5'/><a href=6 href=7 HREF=8>first wins</a><a href="unclosed>text</a><a href=9>
    <!-- <a href=comment> --><script>var s = "<a href=script>";</script><textarea><a href=textarea></textarea>
    <title><a href=title></title><style>a[href=style] {}</style><![CDATA[<a href=cdata>]]><a href="end"`,
  templates: `<a href=before><template><a href=t1><template><a href=t2></template><a href=t3></template>
    <div><template><a href=t4></div><a href=after-div><section><template><a href=t5></section></template>
    <a href=last>`,
  foreign: `<svg><a href=s1/><title><a href=s2></title><style><a href=s3></style><image href=im.png>
    <foreignObject><a href=f1><image src=x></foreignObject><clipPath id=c></clipPath></svg>
    <math><a href=m1></math><image src=outside.png><a href=plain>`,
  forms: `<form id=1 action=/a><form id=2 action=/b><input name=q></form><form id=3></form>`,
  implied: `<div></p><p id=a>x</br><br id=b></div></br>`,
};
