/**
 * Common Chinese surnames (single and compound). A word after a cue ("和你说过", "朋友发消息") or after a
 * relation ("我同事明天…") is read as a name only when it starts with one (the memory tree's entities,
 * retrieval's alias binding).
 */
const SURNAMES: ReadonlySet<string> = new Set([
  ..."王李张刘陈杨黄赵吴周徐孙马朱胡郭何高林罗郑梁谢宋唐许韩冯邓曹彭曾肖田董袁潘于蒋蔡余杜叶程苏魏吕丁任沈姚卢姜崔钟谭陆汪范金石廖贾夏韦付方白邹孟熊秦邱江尹薛闫段雷侯龙史陶黎贺顾毛郝龚邵万钱严覃武戴莫孔向汤常温康施文牛樊葛邢安齐易乔伍庞颜倪庄聂章鲁岳翟殷詹申欧耿关兰焦俞左柳甘祝包宁尚符舒阮柯纪梅童凌毕单季裴霍涂成苗谷盛曲翁冉骆蓝路游辛靳管柴蒙鲍华喻祁蒲房滕屈饶解牟艾尤阳时穆农司卓古吉缪简车项连芦麦褚娄窦戚岑景党宫费卜冷晏席卫米柏宗瞿桂全佟应臧闵苟邬边卞姬师和仇栾隋商刁沙荣巫寇桑郎甄丛仲虞敖巩明佘池查麻苑迟邝",
]);
const COMPOUND_SURNAMES = [
  "欧阳",
  "司马",
  "诸葛",
  "上官",
  "东方",
  "皇甫",
  "令狐",
  "慕容",
  "尉迟",
  "公孙",
  "长孙",
  "宇文",
  "司徒",
  "夏侯",
];

/** The surname a text starts with (a compound one first), if any. */
export function surnameAt(text: string): string | undefined {
  const compound = COMPOUND_SURNAMES.find((surname) => text.startsWith(surname));
  if (compound) return compound;
  const first = text[0];
  return first !== undefined && SURNAMES.has(first) ? first : undefined;
}

/** A candidate of a surname and a given name of one or two characters is a name; anything else is not. */
export function personName(candidate: string): string | null {
  const surname = surnameAt(candidate);
  if (!surname) return null;
  const given = candidate.length - surname.length;
  return given >= 1 && given <= 2 ? candidate : null;
}
