from learn import *
F=Field
def run(cpu):
    res={}
    res['VOP1']=learn(cpu, range(256), 1, lambda op:[0x7E000000|op<<9],
        [F('vdst',0,17,8,10,14), F('src0',0,0,9,256+20,256+24)])
    flips(cpu,res['VOP1'],1,[0xfe01fe00])
    res['VOP2']=learn(cpu, range(0x3e), 1, lambda op:[op<<25],
        [F('vdst',0,17,8,10,14), F('src0',0,0,9,256+20,256+24), F('vsrc1',0,9,8,30,34)])
    flips(cpu,res['VOP2'],1,[0xfe000000])
    res['VOPC']=learn(cpu, range(256), 1, lambda op:[0x7C000000|op<<17],
        [F('src0',0,0,9,256+20,256+24), F('vsrc1',0,9,8,30,34)])
    flips(cpu,res['VOPC'],1,[0xfffe0000])
    res['VOP3']=learn(cpu, range(1024), 2, lambda op:[0xD4000000|op<<16],
        [F('vdst',0,0,8,10,14), F('sdst',0,8,7,6,12), F('src0',1,0,9,256+20,256+24), F('src1',1,9,9,256+30,256+34), F('src2',1,18,9,256+40,256+44)])
    flips(cpu,res['VOP3'],2,[0xffff0000,0])
    res['VOP3P']=learn(cpu, range(128), 2, lambda op:[0xCC000000|op<<16],
        [F('vdst',0,0,8,10,14), F('src0',1,0,9,256+20,256+24), F('src1',1,9,9,256+30,256+34), F('src2',1,18,9,256+40,256+44)])
    flips(cpu,res['VOP3P'],2,[0xffff0000,0])
    return res
out={c:run(c) for c in ('gfx1013','gfx1030')}
json.dump(out,open('vop_learn.json','w'),indent=0)
