// Chinese surnames (the common single ones, which cover the vast majority of people, and the compound ones).

export const COMPOUND_SURNAMES = new Set([
  '欧阳',
  '司马',
  '上官',
  '诸葛',
  '东方',
  '皇甫',
  '尉迟',
  '公孙',
  '慕容',
  '长孙',
  '宇文',
  '司徒',
  '令狐',
  '夏侯',
  '轩辕',
  '端木',
  '独孤',
  '南宫',
  '西门',
  '百里',
  '呼延',
  '澹台',
  '公冶',
  '太史',
  '申屠',
  '钟离',
  '闻人',
  '赫连',
]);

export const SURNAMES = new Set(
  Array.from(
    '王李张刘陈杨黄赵吴周徐孙马朱胡郭何高林罗郑梁谢宋唐许韩冯邓曹彭曾肖田董袁潘于蒋蔡余杜叶程苏魏吕丁任沈姚卢姜' +
      '崔钟谭陆汪范金石廖贾夏韦付傅方白邹孟熊秦邱江尹薛闫阎段雷侯龙史陶黎贺顾毛郝龚邵万钱严覃武戴莫孔向汤常温康施' +
      '文牛樊葛邢安齐易乔伍庞颜倪庄聂章鲁岳翟殷詹申欧耿关兰焦俞左柳甘祝包宁尚符舒阮柯纪梅童凌毕单季裴霍涂成苗谷盛' +
      '曲翁冉骆蓝路游辛靳管柴蒙鲍华喻祁蒲房滕屈饶解牟艾尤阳时穆农司卓古吉缪简车项连芦麻褚娄窦戚岑景党宫费卜冷晏席' +
      '卫米柏宗瞿桂全佟应臧闵苟邬边卞姬师和仇栾隋商刁沙荣巫寇桑郎甄丛仲虞敖巩明佘池查麦苑迟邝鞠楚郜晋靖蔺' +
      '嵇鄢滑宦茅庾郦贝芮蒯韶暴巴钮揭谈雍郁萧赖洪薄植辜畅廉盖奚燕冀丘逯郗宓贲仝桓戎佴',
  ),
);

/**
 * Surnames that are also everyday words (和 "and", 于 "at", 高 "tall", 明 "bright"...). They are still
 * names after a title ("高先生"), but never the start of a longer name when another reading exists.
 */
export const AMBIGUOUS_SURNAMES = new Set(
  Array.from('和于向时成全明应连单解常万关文安易方白金石江龙田叶林路管车高华宁包尚吉古司师商党宫费冷米边查麦池迟沙荣甘曲申阳农简项麻全景'),
);
